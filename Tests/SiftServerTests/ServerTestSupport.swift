import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Sift
import Testing

@testable import SiftServer

/// A small dataset and servers over it, for the server's tests.
enum ServerFixtures {
    static let fieldOrder = ["name", "country", "notes"]

    /// 200 records: accented names for folding, a long note for snippets, countries for a scope.
    static var records: [Record] {
        let names = [
            "José", "Zürich", "Straße", "São Paulo", "Genève", "Kraków", "Malmö", "Ñuñoa", "Zug", "Jose Maria",
        ]
        let countries = [
            "Spain", "Switzerland", "Germany", "Brazil", "Switzerland", "Poland", "Sweden", "Chile", "Switzerland",
            "Spain",
        ]
        return (0..<200).map { i in
            let base = i % names.count
            var fields = [
                "name": i < names.count ? names[base] : "\(names[base]) \(i)",
                "country": countries[base],
            ]
            if i == 3 {
                fields["notes"] =
                    String(repeating: "A long note that goes on about nothing in particular. ", count: 6)
                    + "Somewhere in it is the word harbour, and then it goes on again for a while longer."
            }
            return Record(id: "r\(i)", fields: fields)
        }
    }

    static var configuration: IndexConfiguration {
        IndexConfiguration(
            searchFields: ["name", "country", "notes"],
            collation: Collation(locale: "en"),
            scopes: [
                Scope(name: "All"), Scope(name: "Name", fields: ["name"]),
                Scope(name: "Country", fields: ["country"], minimumLength: 3),
            ],
            sortField: "name"
        )
    }

    /// A fresh temporary folder.
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sift-server-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A server over the records (or the data directory's snapshot when it has one, as
    /// `sift serve` starts).
    static func server(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> SearchServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let index: SearchIndex
        if let directory = configuration.dataDirectory,
            FileManager.default.fileExists(atPath: SearchServer.snapshotPath(in: directory))
        {
            index = try SearchIndex.load(from: SearchServer.snapshotPath(in: directory))
        } else {
            index = try SearchIndex(configuration: Self.configuration, records: records)
        }
        return try await SearchServer(index: index, fieldOrder: fieldOrder, configuration: configuration)
    }
}

/// Reading answers.
extension TestResponse {
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]) ?? [:]
    }
    var errorField: String? { (json["error"] as? [String: Any])?["field"] as? String }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

extension TestClientProtocol {
    /// A request with an optional bearer key and body.
    @discardableResult
    func call(
        _ uri: String,
        _ method: HTTPRequest.Method = .get,
        key: String? = nil,
        body: String? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        return try await executeRequest(
            uri: uri,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
    }
}
