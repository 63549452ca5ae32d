public import Foundation

/// The test process's own folder in the temporary directory, made on first use and removed when
/// the process exits, so that a test run leaves no files behind (a few hundred once did, each
/// run). The Sift, dataset and CLI tests write their files here.
public let testScratch: URL = {
    let url = URL(fileURLWithPath: testScratchPath())
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testScratchPath()) }
    return url
}()

private func testScratchPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("sift-tests-\(getpid())").path
}
