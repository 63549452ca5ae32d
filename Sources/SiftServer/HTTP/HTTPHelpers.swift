import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers and request parts the routes share.
enum HTTPHelpers {
    static func json(_ json: JSONWriter, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes))
        )
    }

    static func error(_ error: ProtocolError) -> Response {
        var body = JSONWriter()
        body.object { body in
            body.key("error")
            error.write(into: &body)
        }
        return json(body, status: HTTPResponse.Status(code: error.status))
    }

    /// Runs a route's work, answering a `ProtocolError` as its JSON error.
    static func answer(_ work: () async throws(ProtocolError) -> Response) async -> Response {
        do {
            return try await work()
        } catch {
            return self.error(error)
        }
    }

    /// The key a request presents as `Authorization: Bearer KEY` (or `?key=` when `queryKey`).
    static func presentedKey(_ request: Request, queryKey: Bool = false) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            return String(header.dropFirst("Bearer ".count))
        }
        return queryKey ? queryParameters(request)["key"] : nil
    }

    /// The query string's parameters, `+` read as a space and percent-escapes decoded (the last
    /// value wins when a name repeats).
    static func queryParameters(_ request: Request) -> [String: String] {
        guard let query = request.uri.query, !query.isEmpty else { return [:] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            parameters[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return parameters
    }

    /// The request's body, refused past `limit` bytes.
    static func body(_ request: Request, limit: Int) async throws(ProtocolError) -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch {
            throw .payloadTooLarge("the body is larger than \(limit) bytes")
        }
    }
}
