import Testing
@testable import SiftServer

@Test func resourcesAreEmbedded() { #expect(!ServerResources.page.isEmpty) }
