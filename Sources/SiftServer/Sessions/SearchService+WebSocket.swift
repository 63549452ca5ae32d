import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket
import Sift

extension SearchService {
    /// Adds `/ws`: a session per connection (see the protocol article).
    func addWebSocketRoute(to router: Router<BasicWebSocketRequestContext>) {
        router.ws("/ws") { request, _ in
            guard self.maySearch(HTTPHelpers.presentedKey(request, queryKey: true)) else {
                throw HTTPError(.unauthorized, message: "this server needs its search key as ?key=KEY")
            }
            guard self.statistics.sessions < self.configuration.limits.sessions else {
                throw HTTPError(.serviceUnavailable, message: "the server has as many sessions as it takes")
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            guard let number = self.statistics.openSession(limit: self.configuration.limits.sessions) else {
                try await outbound.close(.unexpectedServerError, reason: "too many sessions")
                return
            }
            defer { self.statistics.closeSession() }
            let controller = try await self.shared.makeController(options: self.controllerOptions)
            let session = SearchSession(number: number, controller: controller, server: self)
            _ = await self.currentRecordCount()  // for `hello`, when a follower edits the index
            await session.send(session.hello())
            let updates = await controller.updates(buffering: .all)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The one writer: every message of the session, in the order it was queued.
                    for await message in session.outgoing { try await outbound.write(.text(message)) }
                }
                group.addTask {
                    for await update in updates { await session.deliver(update) }
                }
                group.addTask {
                    // Closes a session that stays silent past the idle timeout.
                    let timeout = self.configuration.limits.idleTimeout
                    while true {
                        try await Task.sleep(for: min(timeout, .seconds(10)))
                        if await session.lastActivity.duration(to: .now) >= timeout {
                            try await outbound.close(.goingAway, reason: "idle for \(timeout)")
                            return
                        }
                    }
                }
                for try await message in inbound.messages(maxSize: self.configuration.limits.messageBytes) {
                    guard case .text(let text) = message else {
                        await session.send(
                            #"{"type":"error","seq":null,"code":"badRequest","message":"messages are JSON text"}"#
                        )
                        continue
                    }
                    if let reply = await session.receive(text) { await session.send(reply) }
                }
                await session.finish()
                group.cancelAll()
            }
        }
    }
}
