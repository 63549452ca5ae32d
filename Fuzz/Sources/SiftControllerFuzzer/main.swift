import CFuzzerDriver
import Dispatch
import Foundation
import Sift
import Synchronization
import _SiftFuzzing

/// What the check of one input found, handed from the task that ran it to libFuzzer's thread.
final class Finding: Sendable {
    let problem = Mutex<String?>(nil)
}

/// One input: a script of keystrokes, scope changes and edits through a `SearchController`, its
/// updates and tables checked (`_SiftControllerFuzzing`). A problem aborts so that libFuzzer saves
/// the input as a crash artifact.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // libFuzzer calls in synchronously; the controller is an actor. Run the check as a task on
    // the concurrency pool and block this thread (not one of the pool's) until it ends.
    let finding = Finding()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let problem = await _SiftControllerFuzzing.check(bytes)
        finding.problem.withLock { $0 = problem }
        done.signal()
    }
    done.wait()
    if let problem = finding.problem.withLock({ $0 }) {
        fatalError("SearchController broke a promise: \(problem)")
    }
    return 0
}

// SwiftPM gives executables their own `main`; hand control to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in testOneInput(data, size) })
