import CFuzzerDriver
import Foundation
import Sift
import _SiftFuzzing

/// One input of records and a typed query, checked against ICU usearch and, in fuzzy mode, ICU's
/// collation elements (`_SiftFuzzing`); a disagreement aborts so that libFuzzer saves the input
/// as a crash artifact.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let problem = _SiftFuzzing.check(bytes) {
        fatalError("Sift disagrees with ICU: \(problem)")
    }
    return 0
}

// SwiftPM gives executables their own `main`; hand control to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in testOneInput(data, size) })
