import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sift
import Testing

@testable import SiftServer

/// Answers of a server, with and without a record store, against the schemas of the OpenAPI
/// document it serves (the subset of JSON Schema the document uses).
@Suite struct OpenAPIAnswerTests {
    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(PackageResources.openapi_json)) as? [String: Any])
    }

    /// The places in `value` that break `schema`, as `path: why` lines (none: it conforms).
    static func violations(
        _ value: Any,
        _ schema: [String: Any],
        in document: [String: Any],
        at path: String = "$"
    )
        -> [String]
    {
        if let reference = schema["$ref"] as? String {
            var current: Any = document
            for token in reference.dropFirst(2).split(separator: "/") {
                guard let next = (current as? [String: Any])?[String(token)] else { return ["\(path): \(reference)?"] }
                current = next
            }
            return violations(value, current as? [String: Any] ?? [:], in: document, at: path)
        }
        var found: [String] = []
        if let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map({ [$0] }) {
            let number = value as? NSNumber
            // JSONSerialization reads true and false as numbers of type `c` (char).
            let isBool = number.map { String(cString: $0.objCType) == "c" } ?? false
            let matches = types.contains { type in
                switch type {
                case "object": value is [String: Any]
                case "array": value is [Any]
                case "string": value is String
                case "boolean": isBool
                case "integer": number != nil && !isBool && number!.doubleValue.rounded() == number!.doubleValue
                case "number": number != nil && !isBool
                case "null": value is NSNull
                default: false
                }
            }
            if !matches { return ["\(path): \(value) is not \(types)"] }
        }
        if let allowed = schema["enum"] as? [String], let string = value as? String, !allowed.contains(string) {
            found.append("\(path): \(string) is not one of \(allowed)")
        }
        if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, let number = value as? NSNumber,
            number.doubleValue < minimum
        {
            found.append("\(path): \(number) < \(minimum)")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                found.append("\(path): \(name) is missing")
            }
            for (name, child) in object {
                if let property = properties[name] {
                    found += violations(child, property, in: document, at: "\(path).\(name)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    found += violations(child, additional, in: document, at: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path): \(name) is not in the schema")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, item) in array.enumerated() { found += violations(item, items, in: document, at: "\(path)[\(i)]") }
        }
        return found
    }

    /// The schema of an operation's answer with a status.
    static func schema(
        _ path: String,
        _ method: String,
        _ status: Int,
        in document: [String: Any]
    ) throws
        -> [String: Any]
    {
        let operation = try #require(((document["paths"] as? [String: Any])?[path] as? [String: Any])?[method])
        var response = try #require(((operation as? [String: Any])?["responses"] as? [String: Any])?[String(status)])
        if let reference = (response as? [String: Any])?["$ref"] as? String {
            let name = String(try #require(reference.split(separator: "/").last))
            response = try #require(
                ((document["components"] as? [String: Any])?["responses"] as? [String: Any])?[name]
            )
        }
        let content = try #require((response as? [String: Any])?["content"] as? [String: Any])
        return try #require((content["application/json"] as? [String: Any])?["schema"] as? [String: Any])
    }

    @Test func theValidatorCatchesWhatTheSchemaRefuses() throws {
        let document = try Self.document()
        let inserted = try Self.schema("/records", "post", 201, in: document)
        #expect(Self.violations(["sequence": 1, "inserted": 2, "visible": true], inserted, in: document).isEmpty)
        #expect(!Self.violations(["sequence": 1, "inserted": 2], inserted, in: document).isEmpty)
        #expect(!Self.violations(["sequence": 1, "inserted": 2, "visible": 1], inserted, in: document).isEmpty)
        #expect(!Self.violations(["sequence": -1, "inserted": 2, "visible": true], inserted, in: document).isEmpty)
        #expect(
            !Self.violations(["sequence": 1, "inserted": 2, "visible": true, "more": 0], inserted, in: document)
                .isEmpty
        )
    }

    @Test func answersWithAndWithoutAStoreConformToTheDocument() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.adminKey = "admin"
        let shared = SharedSearchIndex(
            try SearchIndex(configuration: ServerFixtures.configuration, records: ServerFixtures.records)
        )
        let store = MemoryRecordStore(shared: shared, ids: Set(ServerFixtures.records.map(\.id)))
        let withStore = try await SearchServer(
            shared: shared,
            fieldOrder: ServerFixtures.fieldOrder,
            configuration: configuration,
            store: store
        )
        let directory = ServerFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let withLog = try await ServerFixtures.server {
            $0.adminKey = "admin"
            $0.dataDirectory = directory
        }
        for server in [withStore, withLog] {
            try await server.makeApplication().test(.router) { client in
                let document = try Self.document()
                let calls: [(String, HTTPRequest.Method, String?, String, String)] = [
                    ("/records", .post, #"[{"id":"n1","fields":{"name":"New"}}]"#, "/records", "post"),
                    ("/records", .put, #"[{"id":"n1","fields":{"name":"Newer"}}]"#, "/records", "put"),
                    ("/records", .delete, #"["n1"]"#, "/records", "delete"),
                    ("/records", .delete, #"["n1"]"#, "/records", "delete"),
                    ("/stats", .get, nil, "/stats", "get"), ("/health", .get, nil, "/health", "get"),
                ]
                for (uri, method, body, path, operation) in calls {
                    let answer = try await client.call(uri, method, key: "admin", body: body)
                    let schema = try Self.schema(path, operation, Int(answer.status.code), in: document)
                    let json = try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView))
                    #expect(Self.violations(json, schema, in: document) == [], "\(method) \(uri)")
                }
            }
            await server.close()
        }
    }
}
