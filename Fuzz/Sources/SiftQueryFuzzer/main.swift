import CFuzzerDriver
import Foundation
import Sift
import _SiftFuzzing

/// One input of records and a query text grown into operator expressions of many terms with
/// repeats, checked against a brute-force evaluation and against `QueryLimits` refusing cleanly
/// (`_SiftQueryFuzzing`); a disagreement aborts so that libFuzzer saves the input as a crash
/// artifact.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let problem = _SiftQueryFuzzing.check(bytes) {
        fatalError("Sift's query expressions disagree with brute force: \(problem)")
    }
    return 0
}

// SwiftPM gives executables their own `main`; hand control to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in testOneInput(data, size) })
