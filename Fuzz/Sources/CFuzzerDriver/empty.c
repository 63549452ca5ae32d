// Header-only target: the declaration of LLVMFuzzerRunDriver.
