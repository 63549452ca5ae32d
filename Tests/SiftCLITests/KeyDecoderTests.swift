import Foundation
import Testing

@testable import SiftTool

@Suite("sift repl: key decoding and display width")
struct KeyDecoderTests {
    func keys(_ chunks: [[UInt8]], flush: Bool = false) -> [Key] {
        var decoder = KeyDecoder()
        var keys = chunks.flatMap { decoder.feed($0) }
        if flush { keys += decoder.flush() }
        return keys
    }

    @Test func textControlAndEditingKeys() {
        #expect(keys([Array("zü".utf8)]) == [.text("zü")])
        #expect(
            keys([[0x7F], [0x08], [0x0D], [0x09], [0x03], [0x04], [0x14]])
                == [.backspace, .backspace, .enter, .tab, .control("c"), .control("d"), .control("t")]
        )
        // Text runs are split by control keys.
        #expect(keys([Array("ab".utf8) + [0x7F] + Array("c".utf8)]) == [.text("ab"), .backspace, .text("c")])
    }

    @Test func escapeSequences() {
        let csi: [UInt8] = [0x1B, 0x5B]
        #expect(
            keys([csi + Array("A".utf8), csi + Array("B".utf8), csi + Array("C".utf8), csi + Array("D".utf8)])
                == [.up, .down, .right, .left]
        )
        #expect(
            keys([csi + Array("5~".utf8), csi + Array("6~".utf8), csi + Array("Z".utf8), csi + Array("3~".utf8)])
                == [.pageUp, .pageDown, .shiftTab, .delete]
        )
        #expect(
            keys([csi + Array("H".utf8), csi + Array("4~".utf8), [0x1B, 0x4F, 0x41], csi + Array("1;5A".utf8)])
                == [.home, .end, .up, .up]
        )
        // A sequence split across reads is completed by the next read.
        #expect(keys([[0x1B], [0x5B], Array("6".utf8), Array("~x".utf8)]) == [.pageDown, .text("x")])
        #expect(keys([csi + Array("99q".utf8)]).isEmpty)  // unknown sequences are ignored
    }

    @Test func escapeAloneIsEscOnceNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.isWaiting)
        #expect(keys([[0x1B, 0x1B]], flush: true) == [.escape, .escape])
        #expect(keys([[0x1B] + Array("x".utf8)]) == [.escape, .text("x")])  // Alt+x
        #expect(keys([[0x1B, 0x5B, 0x31]], flush: true).isEmpty)  // an incomplete sequence is dropped
    }

    @Test func multiByteCharactersSplitAcrossReads() {
        let tokyo = Array("東京".utf8)  // 3 bytes each
        #expect(keys([Array(tokyo[0..<2]), Array(tokyo[2..<5]), Array(tokyo[5...])]) == [.text("東"), .text("京")])
        let pizza = Array("🍕".utf8)
        #expect(keys([Array(pizza[0..<1]), Array(pizza[1...])]) == [.text("🍕")])
        #expect(keys([[0x80, 0xFF] + Array("a".utf8)]) == [.text("a")])  // stray bytes are dropped
    }

    @Test func linesAreFittedByDisplayWidth() {
        let bold = "\u{1B}[1m"
        let reset = "\u{1B}[0m"
        // Wide characters take two columns; one that would straddle the edge is left out.
        #expect(DisplayWidth.fit("東京大阪", width: 5) == "東京\u{1B}[0m")
        #expect(DisplayWidth.ofLine(DisplayWidth.fit("東京大阪", width: 5, pad: true)) == 5)
        // Escape sequences take no columns and are kept; combining marks stay with their base.
        let line = bold + "Que\u{301}bec" + reset + " 🍕 Napoli"
        #expect(DisplayWidth.ofLine(line) == 16)
        #expect(DisplayWidth.fit(line, width: 16) == line)
        #expect(DisplayWidth.fit(line, width: 4) == bold + "Que\u{301}b" + reset + "\u{1B}[0m")
        #expect(DisplayWidth.fit(line, width: 8) == bold + "Que\u{301}bec" + reset + " \u{1B}[0m")
        #expect(DisplayWidth.fit("ab", width: 4, pad: true) == "ab  ")
    }

    @Test func cellsAreCutWithinTheirColumnWithTheMatchInSight() {
        let text = "Weinstraße"
        let match = text.range(of: "straße")!
        let cell = Cells.highlighted(text, [match])
        // Brackets count: the cell never exceeds its column.
        for limit in 3...12 {
            let (fitted, width) = Cells.fit(cell, limit, .brackets)
            #expect(width <= limit, "\(fitted)")
            #expect(DisplayWidth.ofLine(fitted) == width)
        }
        #expect(Cells.fit(cell, 9, .brackets).0 == "…[straße]")
        // A match that ends just before the cut: its closing bracket counts too.
        let congo = "Democratic Republic of the Congo"
        let a = congo.range(of: "a")!
        #expect(Cells.fit(Cells.highlighted(congo, [a]), 10, .brackets) == ("Democr[a]…", 10))
    }

    /// A value of millions of characters with a match every few words: the cell is a window
    /// around the first match (the highlight walk used to test every character against every
    /// range: hours for a 20 MB field), marked "…" where it was cut, with every match in it.
    @Test func hugeValuesBecomeAWindowAroundTheFirstMatch() {
        let words = (0..<400_000).map { $0 % 7 == 0 ? "omega" : "beta\($0 % 10)" }
        let text = "start " + words.joined(separator: " ")
        var ranges: [Range<String.Index>] = []
        var from = text.startIndex
        while let range = text.range(of: "omega", range: from..<text.endIndex) {
            ranges.append(range)
            from = range.upperBound
        }
        #expect(ranges.count > 50_000)
        let cell = Cells.highlighted(text, ranges)
        #expect(cell.count == 1 + Cells.windowCharacters)  // cut at the end only: the match is near the start
        #expect(String(cell.prefix(11).map(\.character)) == "start omega")
        #expect(cell.last?.character == "…")
        let highlighted = cell.filter(\.highlighted).count
        #expect(highlighted > 100 && highlighted % 5 == 0)
        // A first match far in: the window starts a quarter window before it, after "…".
        let late = String(repeating: "x", count: 100_000) + " omega"
        let cut = Cells.highlighted(late, [late.range(of: "omega")!])
        #expect(cut.first?.character == "…")
        #expect(cut.count == 1 + Cells.windowCharacters / 4 + 5)  // "…", a quarter window, "omega"
        #expect(String(cut.suffix(5).map(\.character)) == "omega" && cut.suffix(5).allSatisfy(\.highlighted))
        #expect(Cells.plain(late).count == Cells.windowCharacters + 1)
        #expect(Cells.plain("short").count == 5)
    }
}
