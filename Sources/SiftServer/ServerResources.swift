/// The files the server embeds in its binary.
enum ServerResources {
    static var page: [UInt8] { PackageResources.index_html }
    static var openAPI: [UInt8] { PackageResources.openapi_json }
}
