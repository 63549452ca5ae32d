import HTTPTypes
import Hummingbird

/// CORS for the origins `--allow-origin` names, and for no other: a request from one of them gets
/// `Access-Control-Allow-Origin` with its own origin; a preflight gets the methods and headers
/// the API uses.
struct CORSPolicy<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard let origin = request.headers[.origin], origins.contains(origin) || origins.contains("*") else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin,
                    .accessControlAllowMethods: "GET, POST, PUT, DELETE, OPTIONS",
                    .accessControlAllowHeaders: "Authorization, Content-Type",
                    .accessControlMaxAge: "600",
                    .vary: "Origin",
                ]
            )
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        return response
    }
}
