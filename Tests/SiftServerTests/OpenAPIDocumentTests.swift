import Foundation
import Testing

@testable import SiftServer

/// The OpenAPI document the server embeds and serves at `/openapi.json`.
@Suite struct OpenAPIDocumentTests {
    /// The HTTP API of the protocol (SiftServer.docc/Protocol.md): each path with its methods.
    static let protocolOperations: [String: Set<String>] = [
        "/": ["get"], "/openapi.json": ["get"], "/health": ["get"], "/search": ["get"],
        "/records/{id}": ["get"], "/records": ["post", "put", "delete"], "/stats": ["get"],
    ]

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(PackageResources.openapi_json))
        return try #require(object as? [String: Any])
    }

    @Test func isOpenAPI31() throws {
        let document = try document()
        #expect(document["openapi"] as? String == "3.1.0")
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["title"] is String)
        #expect(info["version"] is String)
    }

    @Test func listsTheOperationsOfTheProtocol() throws {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var operations: [String: Set<String>] = [:]
        for (path, item) in paths {
            operations[path] = Set(item.keys.filter { Self.methods.contains($0) })
        }
        #expect(operations == Self.protocolOperations)
    }

    @Test func everyReferenceResolves() throws {
        let document = try document()
        let references = references(in: document)
        #expect(!references.isEmpty)
        for reference in references {
            #expect(resolve(reference, in: document) != nil, "\(reference) does not resolve")
        }
    }

    @Test func keysAsTheProtocolSays() throws {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        for (path, item) in paths {
            for (method, value) in item where Self.methods.contains(method) {
                let operation = try #require(value as? [String: Any])
                let schemes = try #require(operation["security"] as? [[String: Any]], "\(method) \(path)")
                let names = Set(schemes.flatMap(\.keys))
                switch (method, path) {
                case (_, "/"), (_, "/health"), (_, "/openapi.json"): #expect(names.isEmpty, "\(method) \(path)")
                case (_, "/records") where method != "get": #expect(names == ["adminKey"], "\(method) \(path)")
                default: #expect(names == ["searchKey", "adminKey"], "\(method) \(path)")
                }
            }
        }
    }

    @Test func searchLimitsAsTheProtocolSays() throws {
        let document = try document()
        let limit = try #require(resolve("#/components/parameters/limit/schema", in: document) as? [String: Any])
        #expect(limit["minimum"] as? Int == 1)
        #expect(limit["maximum"] as? Int == 500)
        let offset = try #require(resolve("#/components/parameters/offset/schema", in: document) as? [String: Any])
        #expect(offset["minimum"] as? Int == 0)
        let q = try #require(resolve("#/components/parameters/q/schema", in: document) as? [String: Any])
        #expect(q["maxLength"] as? Int == 1024)
    }
}

/// Every `$ref` value anywhere in `value`.
private func references(in value: Any) -> [String] {
    if let object = value as? [String: Any] {
        var found = (object["$ref"] as? String).map { [$0] } ?? []
        for child in object.values { found += references(in: child) }
        return found
    }
    if let array = value as? [Any] { return array.flatMap { references(in: $0) } }
    return []
}

/// What a local reference (`#/a/b`, a JSON pointer) points to in `document`, or nil.
private func resolve(_ reference: String, in document: [String: Any]) -> Any? {
    guard reference.hasPrefix("#/") else { return nil }
    var current: Any = document
    for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
        let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        guard let object = current as? [String: Any], let next = object[key] else { return nil }
        current = next
    }
    return current
}
