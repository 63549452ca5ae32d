extension TantivyPeer {
    /// The helper `TantivyPeer` runs with `python3 SCRIPT RECORDS FIELDS`. It prints one JSON
    /// line when its index is built, then answers each request line (`{"text", "fields",
    /// "mode"}`) with a JSON line (`{"nanoseconds", "count"}` or `{"error"}`) followed by `count`
    /// little-endian 32-bit row numbers, ascending.
    static let script = #"""
        import array
        import json
        import sys
        import time

        import tantivy

        ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}
        REGEX_SPECIAL = set("\\.+*?()|[]{}^$#&-~")


        def unescape(value):
            if "\\" not in value:
                return value
            out, i = [], 0
            while i < len(value):
                if value[i] == "\\" and i + 1 < len(value):
                    out.append(ESCAPES.get(value[i + 1], value[i + 1]))
                    i += 2
                else:
                    out.append(value[i])
                    i += 1
            return "".join(out)


        def literal(text):
            return "".join("\\" + c if c in REGEX_SPECIAL else c for c in text)


        def analyzer(tokenizer):
            # Tantivy refuses terms over 65,530 bytes; a longer whole field is left out of prefix.
            return (
                tantivy.TextAnalyzerBuilder(tokenizer)
                .filter(tantivy.Filter.remove_long(65000))
                .filter(tantivy.Filter.lowercase())
                .filter(tantivy.Filter.ascii_fold())
                .build()
            )


        def main():
            path, field_count = sys.argv[1], int(sys.argv[2])
            words = analyzer(tantivy.Tokenizer.simple())
            whole = analyzer(tantivy.Tokenizer.raw())
            builder = tantivy.SchemaBuilder()
            for f in range(field_count):
                builder.add_text_field(f"w{f}", tokenizer_name="sift_words", index_option="position")
                builder.add_text_field(f"p{f}", tokenizer_name="sift_whole", index_option="basic")
            builder.add_unsigned_field("row", fast=True)
            schema = builder.build()
            index = tantivy.Index(schema)
            index.register_tokenizer("sift_words", words)
            index.register_tokenizer("sift_whole", whole)

            start = time.perf_counter_ns()
            writer = index.writer(1 << 30, 0)
            with open(path, encoding="utf-8", newline="\n") as records:
                for line in records:
                    parts = line[:-1].split("\t") if line.endswith("\n") else line.split("\t")
                    document = tantivy.Document()
                    document.add_unsigned("row", int(parts[0]))
                    for f in range(field_count):
                        value = unescape(parts[f + 1])
                        document.add_text(f"w{f}", value)
                        document.add_text(f"p{f}", value)
                    writer.add_document(document)
            writer.commit()
            writer.wait_merging_threads()
            index.reload()
            build = time.perf_counter_ns() - start
            searcher = index.searcher()

            out = sys.stdout.buffer
            ready = {
                "version": str(tantivy.__version__),
                "nanoseconds": build,
                "documents": searcher.num_docs,
                "segments": searcher.num_segments,
            }
            out.write((json.dumps(ready) + "\n").encode())
            out.flush()

            def any_field(prefix, token, fields):
                pattern = literal(token) + "(?s:.)*"
                return tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, tantivy.Query.regex_query(schema, f"{prefix}{f}", pattern)) for f in fields]
                )

            def query_for(request):
                fields = request["fields"]
                if request["mode"] == "prefix":
                    tokens = whole.analyze(request["text"])
                    return any_field("p", tokens[0], fields) if tokens else tantivy.Query.all_query()
                tokens = words.analyze(request["text"])
                if not tokens:
                    return tantivy.Query.all_query()
                return tantivy.Query.boolean_query([(tantivy.Occur.Must, any_field("w", t, fields)) for t in tokens])

            for line in sys.stdin:
                rows = array.array("i")
                try:
                    query = query_for(json.loads(line))
                    began = time.perf_counter_ns()
                    count = searcher.search(query, limit=1, count=True, order_by_field="row").count
                    elapsed = time.perf_counter_ns() - began
                    if count:
                        hits = searcher.search(
                            query, limit=count, count=False, order_by_field="row", order=tantivy.Order.Asc
                        ).hits
                        rows.extend(row for row, _ in hits)
                    header = {"nanoseconds": elapsed, "count": len(rows)}
                except Exception as error:
                    header = {"error": f"{type(error).__name__}: {error}"}
                    rows = array.array("i")
                if sys.byteorder != "little":
                    rows.byteswap()
                out.write((json.dumps(header) + "\n").encode())
                out.write(rows.tobytes())
                out.flush()


        main()
        """#
}
