/// Terminal display width of text: wide East Asian characters and emoji take two columns,
/// combining marks none, so that table columns line up with CJK, emoji and accents.
enum DisplayWidth {
    /// Columns taken by one user-perceived character.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.value < 0x20 || (0x7F..<0xA0).contains(first.value) { return 0 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
            || character.unicodeScalars.contains(where: { $0.value == 0xFE0F })
        {
            return 2
        }
        return isWide(first.value) ? 2 : first.properties.generalCategory == .nonspacingMark ? 0 : 1
    }

    /// Columns taken by a string.
    static func of(_ text: some StringProtocol) -> Int { text.reduce(0) { $0 + of($1) } }

    /// East Asian Wide and Fullwidth ranges (Unicode 15, EastAsianWidth.txt, W and F).
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension DisplayWidth {
    /// A line with terminal escape sequences, cut to at most `width` columns (escape sequences
    /// take none; a wide character that would straddle the edge is left out; combining marks stay
    /// with their base, since whole characters are kept or dropped) and, with `pad`, filled with
    /// spaces to exactly `width`. A cut line ends with attributes reset.
    static func fit(_ line: String, width: Int, pad: Bool = false) -> String {
        var out = ""
        var used = 0
        var inEscape = false
        var escapeStarted = false
        var cut = false
        for character in line {
            if inEscape {
                out.append(character)
                if escapeStarted {
                    if let scalar = character.unicodeScalars.first, (0x40...0x7E).contains(scalar.value) {
                        inEscape = false
                    }
                } else {
                    escapeStarted = true
                    if character != "[" { inEscape = false }
                }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                escapeStarted = false
                out.append(character)
                continue
            }
            if cut { continue }
            let characterWidth = of(character)
            if used + characterWidth > width {
                cut = true
                continue
            }
            out.append(character)
            used += characterWidth
        }
        if cut { out += "\u{1B}[0m" }
        if pad && used < width { out += String(repeating: " ", count: width - used) }
        return out
    }

    /// Display width of a line, not counting escape sequences.
    static func ofLine(_ line: String) -> Int {
        var width = 0
        var inEscape = false
        var escapeStarted = false
        for character in line {
            if inEscape {
                if escapeStarted {
                    if let scalar = character.unicodeScalars.first, (0x40...0x7E).contains(scalar.value) {
                        inEscape = false
                    }
                } else {
                    escapeStarted = true
                    if character != "[" { inEscape = false }
                }
            } else if character == "\u{1B}" {
                inEscape = true
                escapeStarted = false
            } else {
                width += of(character)
            }
        }
        return width
    }
}
