extension TimetablePage {
    /// The page's style sheet. Each grid sets `--lanes` (session columns) and `--rows` (rows of five minutes);
    /// on screen a lane is at least 9rem wide and the grid scrolls sideways, printed the lanes share the width of
    /// an A4 landscape page and each day starts a page. Colours print as shown (`print-color-adjust`).
    static let css = """
        :root { --row: 0.55rem; --lane: 9rem; --time: 3.2rem; }
        * { box-sizing: border-box; }
        body { margin: 1rem; font: 13px/1.25 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #111;
          background: #fff; }
        h1 { font-size: 1.35rem; margin: 0 0 0.3rem; }
        h2 { font-size: 1.1rem; margin: 1.2rem 0 0.4rem; }
        .note, .legend { margin: 0.2rem 0; color: #444; font-size: 0.85rem; }
        .key { display: inline-block; margin-right: 0.8rem; padding: 0 0.3rem; border: 1px solid #8a9bb0;
          border-radius: 3px; background: #eef3fa; }
        .key.fav { background: #fff0a8; border-color: #c9a400; }
        .key.conflict { border: 2px dashed #c00000; }
        .key.cancelled { text-decoration: line-through; color: #777; }
        .toc { margin: 0.6rem 0; }
        .toc a { display: inline-block; margin: 0 1rem 0.2rem 0; color: #0645ad; }
        .zone { font-weight: normal; font-size: 0.85rem; color: #555; }
        .scroll { overflow-x: auto; }
        .grid { display: grid; grid-template-columns: var(--time) repeat(var(--lanes), minmax(var(--lane), 1fr));
          grid-template-rows: auto repeat(var(--rows), var(--row)); }
        .room { position: sticky; top: 0; z-index: 2; padding: 0.2rem 0.3rem; border-bottom: 1px solid #888;
          border-left: 1px solid #ddd; background: #f2f2f2; font-weight: bold; font-size: 0.8rem;
          overflow-wrap: anywhere; }
        .time { padding-right: 0.3rem; border-top: 1px solid #bbb; color: #555; font-size: 0.75rem; text-align: right; }
        .line { z-index: 0; border-top: 1px solid #e2e2e2; }
        .session { z-index: 1; margin: 1px; padding: 0.1rem 0.25rem; overflow: hidden; border: 1px solid #8a9bb0;
          border-left: 4px solid #8a9bb0; border-radius: 3px; background: #eef3fa; font-size: 0.75rem; }
        .session .when { color: #444; font-size: 0.7rem; }
        .session .what { font-weight: bold; }
        .session .who { font-style: italic; }
        .session .where { color: #555; font-size: 0.7rem; }
        .session.fav { background: #fff0a8; border-color: #c9a400; }
        .session.conflict { border: 2px dashed #c00000; border-left-width: 4px; }
        .session .overlap { color: #b00000; font-weight: bold; font-size: 0.7rem; }
        .session.cancelled { background: #f4f4f4; color: #777; }
        .session.cancelled .what { text-decoration: line-through; }
        .flag { font-weight: normal; }
        .empty { font-size: 1.1rem; }
        @media print {
          @page { size: A4 landscape; margin: 8mm; }
          :root { --row: 1.15mm; --lane: 0; --time: 9mm; }
          body { margin: 0; font-size: 7pt; }
          .toc, .note { display: none; }
          .day { break-before: page; page-break-before: always; }
          .day.first { break-before: auto; page-break-before: auto; }
          .scroll { overflow: visible; }
          .room { position: static; font-size: 6.5pt; }
          .session { font-size: 6pt; padding: 0 0.15rem; }
          .session .when, .session .where, .session .overlap { font-size: 5.5pt; }
          .session, .key, .room { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        }

        """
}
