extension ServerSourceStatistics {
    /// `/stats`' `"source"` object: `{"kind": "postgres", "state": "following",
    /// "appliedSequence": 15, "latestSequence": 15, "pendingChanges": 0, "lagMs": 1.2,
    /// "reconnects": 0, "lastError": null, "figures": {"reloads": 0}}`.
    func write(into json: inout JSONWriter) {
        json.object { json in
            json.field("kind", kind)
            json.field("state", state)
            json.field("appliedSequence", appliedSequence)
            json.field("latestSequence", latestSequence)
            json.field("pendingChanges", pendingChanges)
            json.key("lagMs")
            if let lag { json.milliseconds(max(0, SearchSession.milliseconds(lag))) } else { json.null() }
            json.field("reconnects", reconnects)
            json.field("lastError", optional: lastError)
            json.key("figures")
            json.object { json in
                for (name, value) in figures.sorted(by: { $0.key < $1.key }) {
                    json.key(name)
                    // Whole numbers as integers; others, and those past a double's integers, with
                    // three decimals.
                    if value.rounded() == value, abs(value) < 0x1p53 {
                        json.int(Int64(value))
                    } else {
                        json.milliseconds(value)
                    }
                }
            }
        }
    }
}
