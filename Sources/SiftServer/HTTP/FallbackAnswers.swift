import HTTPTypes
import Hummingbird
import NIOCore

/// What the routes do not answer themselves: `405` with an `Allow` header for a method a path
/// does not take, and `404` for a path the API does not have, both as the protocol's JSON errors.
struct FallbackAnswers<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            guard let allowed = Self.methods(of: path) else {
                return HTTPHelpers.error(.notFound("no such path: \(path) (see /openapi.json)"))
            }
            var response = HTTPHelpers.error(
                ProtocolError(
                    status: 405,
                    code: "methodNotAllowed",
                    message: "\(path) takes \(allowed.joined(separator: ", ")), not \(request.method.rawValue)"
                )
            )
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        }
    }

    /// The methods a path of the API takes; nil for a path it does not have.
    static func methods(of path: String) -> [String]? {
        switch path {
        case "/", "/openapi.json", "/health", "/search", "/stats", "/ws": return ["GET", "HEAD"]
        case "/records": return ["POST", "PUT", "DELETE"]
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[1] == "records" && !parts[2].isEmpty ? ["GET", "HEAD"] : nil
        }
    }
}
