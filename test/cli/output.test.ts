import { expect } from "chai";
import { displayWidth, fitWidth } from "../../src/display/displayWidth.js";
import { originColumns, type ShownOrigin } from "../../src/display/originColumns.js";
import { sessionShortener } from "../../src/display/sessionPrefix.js";
import { renderTable, renderTsv, type Column } from "../../src/display/table.js";
import { stdoutTerminal, type Terminal } from "../../src/display/terminal.js";
import { escapeForTerminal, escapeToAscii, escapeTsvCell } from "../../src/display/terminalText.js";
import { offsetLabel, showTime, timeCells } from "../../src/display/times.js";

/** Characters a terminal acts on instead of showing; none may reach it from data. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

type Row = { name: string; note: string; n: number };
const COLUMNS: Column<Row>[] = [
  { header: "NAME", cell: (r) => r.name, min: 4, keep: 10 },
  { header: "N", cell: (r) => String(r.n), keep: 9, align: "right" },
  { header: "NOTE", cell: (r) => r.note, max: 30, min: 6, keep: 5 },
];
const wide = (columns: number | null, utf8 = true): Terminal => ({ isTTY: true, columns, utf8 });

describe("cli output: text a terminal would act on", () => {
  it("escapes C0 and C1 controls, DEL, line separators, bidirectional overrides and lone surrogates", () => {
    const hostile = "a\u001b[31mred\u001b[0m\r\nb\u0007\u009b2J\u007f\u2028\u202eevil\u2066\ud800z";
    const shown = escapeForTerminal(hostile);
    expect(shown).to.equal("a\\u001b[31mred\\u001b[0m\\r\\nb\\u0007\\u009b2J\\u007f\\u2028\\u202eevil\\u2066\\ud800z");
    expect(shown).not.to.match(TERMINAL_CONTROLS);
  });

  it("leaves printable text alone: CJK, emoji (pairs of surrogates), accents", () => {
    for (const text of ["中文字符 テスト", "🎉👍🏽", "café", "plain ascii"]) expect(escapeForTerminal(text)).to.equal(text);
  });

  it("in ASCII mode (a locale that is not UTF-8), writes everything else as escapes too", () => {
    expect(escapeToAscii("中é🎉\n")).to.equal("\\u4e2d\\u00e9\\u{1f389}\\n");
    expect(escapeToAscii("中é🎉\n")).to.match(/^[\x20-\x7e]*$/);
  });

  it("TSV cells: one line each, tabs and backslashes escaped so that every cell reads back", () => {
    expect(escapeTsvCell("a\tb\nc\\d\u001b")).to.equal("a\\tb\\nc\\\\d\\u001b");
  });
});

describe("cli output: display width", () => {
  it("counts CJK and emoji as two columns and combining marks as none", () => {
    expect(displayWidth("abc")).to.equal(3);
    expect(displayWidth("中文")).to.equal(4);
    expect(displayWidth("🎉")).to.equal(2);
    expect(displayWidth("e\u0301")).to.equal(1);
  });

  it("cuts to a width with an ellipsis, never inside a character or an emoji sequence", () => {
    expect(fitWidth("中文字符", 5, "…")).to.equal("中文…");
    expect(displayWidth(fitWidth("中文字符", 5, "…"))).to.be.at.most(5);
    expect(fitWidth("👨‍👩‍👧 family", 3, "…")).to.equal("👨‍👩‍👧…");
    expect(fitWidth("👨‍👩‍👧 family", 2, "…")).to.equal("…");
    expect(fitWidth("/a/long/path/settings.json", 12, "…", "start")).to.equal("…ttings.json");
    expect(fitWidth("short", 10, "…")).to.equal("short");
    expect(fitWidth("abcdef", 4, "...")).to.equal("a...");
  });

  it("measures a megabyte cell no further than it can show", () => {
    const huge = "x".repeat(5_000_000);
    const started = performance.now();
    expect(fitWidth(huge, 10, "…")).to.equal("xxxxxxxxx…");
    // Coarse: proves the cell is not segmented whole (that takes seconds), not a speed.
    expect(performance.now() - started).to.be.below(1000);
  });
});

describe("cli output: tables", () => {
  const rows: Row[] = [
    { name: "guard", n: 12, note: "中文の理由: rm -rf blocked" },
    { name: "fmt🎉", n: 3, note: "plain" },
  ];

  it("aligns columns by display width, with CJK and emoji in the cells", () => {
    const lines = renderTable(COLUMNS, rows, wide(null)).split("\n");
    expect(lines).to.have.length(3);
    // NOTE starts at the same display column in the header and in every row, after a wide name and an emoji.
    const startOf = (line: string, text: string) => displayWidth(line.slice(0, line.indexOf(text)));
    const column = startOf(lines[0]!, "NOTE");
    expect(startOf(lines[1]!, "中文の理由"), lines.join("\n")).to.equal(column);
    expect(startOf(lines[2]!, "plain"), lines.join("\n")).to.equal(column);
  });

  it("fits any terminal width: long cells cut with an ellipsis, then the least important columns left out", () => {
    for (const width of [80, 40, 24, 20, 12, 6]) {
      const lines = renderTable(COLUMNS, rows, wide(width)).split("\n");
      for (const line of lines) expect(displayWidth(line), `${width} columns: ${line}`).to.be.at.most(width);
      // The most important column is always there.
      expect(lines[0]).to.match(/^NAME|^N/);
    }
    expect(renderTable(COLUMNS, rows, wide(24))).to.include("…");
    expect(renderTable(COLUMNS, rows, wide(12)).split("\n")[0]).not.to.include("NOTE");
  });

  it("escapes what a cell holds, and is plain ASCII in a locale that is not UTF-8", () => {
    const hostile: Row[] = [{ name: "x\u001b]0;owned\u0007", n: 1, note: "line\nforged\r中" }];
    const utf8 = renderTable(COLUMNS, hostile, wide(null));
    expect(utf8).not.to.match(TERMINAL_CONTROLS);
    expect(utf8.split("\n")).to.have.length(2);
    const ascii = renderTable(COLUMNS, [...hostile, ...rows], wide(30, false));
    expect(ascii).to.match(/^[\x20-\x7e\n]*$/);
    expect(ascii).to.include("...");
  });

  it("TSV: a header, then one line per row with whole values", () => {
    const tsv = renderTsv(COLUMNS, [{ name: "a\tb", n: 1, note: "x".repeat(100) }]).split("\n");
    expect(tsv).to.deep.equal(["NAME\tN\tNOTE", `a\\tb\t1\t${"x".repeat(100)}`]);
  });
});

describe("cli output: where it goes", () => {
  const tty = { isTTY: true, columns: 100 } as unknown as NodeJS.WriteStream;
  const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;

  it("a terminal's width, $COLUMNS over it, no limit for a pipe unless $COLUMNS says one", () => {
    expect(stdoutTerminal({ LANG: "C.UTF-8" }, tty)).to.deep.equal({ isTTY: true, columns: 100, utf8: true, colour: true });
    expect(stdoutTerminal({ LANG: "C.UTF-8", NO_COLOR: "1" }, tty).colour).to.equal(false);
    expect(stdoutTerminal({}, pipe, "always").colour).to.equal(true);
    expect(stdoutTerminal({ COLUMNS: "20", LANG: "C.UTF-8" }, tty).columns).to.equal(20);
    expect(stdoutTerminal({}, pipe).columns).to.equal(null);
    expect(stdoutTerminal({ COLUMNS: "33" }, pipe).columns).to.equal(33);
    expect(stdoutTerminal({ COLUMNS: "wide" }, pipe).columns).to.equal(null);
    expect(stdoutTerminal({}, { isTTY: true } as unknown as NodeJS.WriteStream).columns).to.equal(80);
  });

  it("UTF-8 from LC_ALL, then LC_CTYPE, then LANG; no locale at all is ASCII", () => {
    expect(stdoutTerminal({ LANG: "en_US.UTF-8" }, pipe).utf8).to.equal(true);
    expect(stdoutTerminal({ LANG: "zh_CN.utf8" }, pipe).utf8).to.equal(true);
    expect(stdoutTerminal({ LANG: "en_US.UTF-8", LC_ALL: "C" }, pipe).utf8).to.equal(false);
    expect(stdoutTerminal({ LANG: "C", LC_CTYPE: "C.UTF-8" }, pipe).utf8).to.equal(true);
    expect(stdoutTerminal({ LANG: "en_US.ISO-8859-1" }, pipe).utf8).to.equal(false);
    expect(stdoutTerminal({}, pipe).utf8).to.equal(false);
  });
});

describe("cli output: times", () => {
  it("offsets east and west of UTC, with minutes", () => {
    expect(offsetLabel(480)).to.equal("+08:00");
    expect(offsetLabel(-210)).to.equal("-03:30");
    expect(offsetLabel(0)).to.equal("+00:00");
  });

  it("a log time in UTC, and in the local zone of this process with its offset", () => {
    expect(showTime("2026-01-13T01:02:03.456Z", true)).to.deep.equal({ text: "2026-01-13 01:02:03", zone: "UTC", iso: "2026-01-13T01:02:03.456Z" });
    const local = showTime("2026-01-13T01:02:03.456Z", false);
    const d = new Date("2026-01-13T01:02:03.456Z");
    const pad = (n: number) => String(n).padStart(2, "0");
    expect(local.text).to.equal(
      `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    );
    expect(local.zone).to.equal(offsetLabel(-d.getTimezoneOffset()));
    // The ISO form with its offset is the same moment.
    expect(new Date(local.iso).getTime()).to.equal(d.getTime());
  });

  it("a time that cannot be read is shown as it is", () => {
    expect(showTime("garbage", false).text).to.equal("garbage");
  });

  it("a column's zone goes to its header when every row shares it", () => {
    expect(timeCells(["2026-01-13T01:00:00Z", "2026-07-13T01:00:00Z"], true)).to.deep.equal({
      zone: "UTC",
      cells: ["2026-01-13 01:00:00", "2026-07-13 01:00:00"],
    });
    expect(timeCells([], false).zone).to.equal(null);
  });
});

describe("cli output: session ids in tables", () => {
  it("the shortest prefix of at least 8 characters that tells the table's sessions apart", () => {
    const short = sessionShortener(["3f2a9b1c-04e1-4b7e-9d6a-1", "3f2a9b1c-04e1-4b7e-9d6a-2", "77aa0000-0000-0000-0000-000000000000", null]);
    expect(short("3f2a9b1c-04e1-4b7e-9d6a-1")).to.equal("3f2a9b1c-04e1-4b7e-9d6a-1");
    expect(short("77aa0000-0000-0000-0000-000000000000")).to.equal("77aa0000-0000-0000-0000-0…");
    expect(short(null)).to.equal("-");
    const uuids = sessionShortener(["0b7c1e2a-aaaa-4bbb-8ccc-000000000001", "d41d8cd9-8f00-4b20-9e80-0998ecf8427e"]);
    expect(uuids("0b7c1e2a-aaaa-4bbb-8ccc-000000000001")).to.equal("0b7c1e2a…");
    expect(uuids("s1")).to.equal("s1");
  });

  describe("originColumns: where rows came from, only where it tells them apart", () => {
    const o = (machine: string | null, user: string | null, writer: string | null, host: string | null): ShownOrigin => ({ machine, user, writer, host });
    const shown = (rows: ShownOrigin[]) => {
      const columns = originColumns(rows, (r) => r);
      return [columns.map((c) => c.header), ...rows.map((r) => columns.map((c) => c.cell(r)))];
    };

    it("one origin, or one besides rows that lack it: no column", () => {
      expect(shown([o("a", "me", "log-1", "qoder"), o("a", "me", "log-1", "qoder")])).to.deep.equal([[], [], []]);
      // A record older than the origin, an event never judged: a missing value is not a second one.
      expect(shown([o("a", "me", "log-1", "qoder"), o(null, null, "log-1", null)])).to.deep.equal([[], [], []]);
    });

    it("two machines (each its own log): MACHINE, not WRITER; a missing value is -", () => {
      expect(shown([o("a", "me", "log-1", "qoder"), o("b", "me", "log-2", null)])).to.deep.equal([["MACHINE"], ["a"], ["b"]]);
      expect(shown([o("a", "me", "log-1", "claude"), o("b", "you", "log-2", "qoder")])).to.deep.equal([
        ["HOST", "MACHINE", "USER"],
        ["claude", "a", "me"],
        ["qoder", "b", "you"],
      ]);
    });

    it("two logs of one machine and user (or two laptops with one host name): WRITER, cut to a unique prefix", () => {
      const one = "0b7c1e2a-aaaa-4bbb-8ccc-000000000001";
      const two = "d41d8cd9-8f00-4b20-9e80-0998ecf8427e";
      expect(shown([o("a", "me", one, "qoder"), o("a", "me", two, "qoder")])).to.deep.equal([["WRITER"], ["0b7c1e2a…"], ["d41d8cd9…"]]);
    });
  });
});
