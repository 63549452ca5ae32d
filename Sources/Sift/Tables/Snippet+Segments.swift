extension Snippet {
    /// The window's text as runs to style, highlighted or not, of whole characters (see
    /// `HighlightSegment.segments(of:highlighting:)`); add "…" before them when `isCutAtStart`
    /// and after them when `isCutAtEnd`.
    ///
    /// - Complexity: O(*n*) in the length of the window.
    public var segments: [HighlightSegment] { HighlightSegment.segments(of: text, highlighting: ranges) }
}
