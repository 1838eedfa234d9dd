import { expect } from "chai";
import { checkDatabaseName } from "../../src/store/postgres/databaseName.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { seedLog } from "./storeHelpers.js";

/**
 * `ship --to postgres://host:5432` (no database) wrote qhooks' tables into the `postgres` maintenance database: a URL
 * that names no database, or a template, is refused with one line; `postgres` itself is a warning. A watching
 * shipper or exporter whose target stays away gives up after a bounded number of rounds, saying so.
 */
describe("store: the database a PostgreSQL URL names", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("a URL without a database, or naming a template, is refused; postgres is a warning; a named one passes", () => {
    for (const url of ["postgres://127.0.0.1:5432", "postgres://u:secret@127.0.0.1:5432/", "postgresql://127.0.0.1/template1", "postgres://h/template0"])
      expect(checkDatabaseName(url), url).to.have.property("refused").that.is.a("string").and.not.include("secret");
    expect(checkDatabaseName("postgres://127.0.0.1:5432/postgres")).to.have.property("warning").that.includes("maintenance database");
    expect(checkDatabaseName("postgres://127.0.0.1:5432/qhooks")).to.deep.equal({ warning: null });
    expect(checkDatabaseName("postgres://127.0.0.1:5432?dbname=team")).to.deep.equal({ warning: null });
  });

  it("ship --to and --db refuse a URL without a database in one line, exit 1", async () => {
    await seedLog(sb.db, [{ ts: new Date(), event: "Stop", sessionId: "s1", decision: "none" }]);
    const ship = await sb.run(["ship", "--to", "postgres://127.0.0.1:5432"]);
    expect(ship.code).to.equal(1);
    expect(ship.stderr).to.match(/^qhooks: --to postgres:\/\/127\.0\.0\.1:5432 names no database: add one/);
    expect(ship.stderr.trim().split("\n")).to.have.length(1);
    const log = await sb.run(["log", "--db", "postgres://127.0.0.1:5432/template1"]);
    expect(log.code).to.equal(1);
    expect(log.stderr).to.include("names the template database template1");
  });

  it("run still decides with QHOOKS_DB naming no database: the event is not logged, and it says why", async () => {
    sb.userSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), [], { QHOOKS_DB: "postgres://127.0.0.1:5432" });
    expect(r.code).to.equal(2);
    expect(r.outcome?.blocked).to.equal(true);
    expect(r.stderr).to.include("names no database").and.include("this event is not logged");
  });

  it("ship --watch gives up after --give-up-after failed rounds in a row, in one line, exit 1", async () => {
    await seedLog(sb.db, [{ ts: new Date(), event: "Stop", sessionId: "s1", decision: "none" }]);
    // Nothing listens on port 1: every round fails to connect.
    const r = await sb.run(["ship", "--to", "postgres://127.0.0.1:1/qhooks", "--watch", "--interval", "100ms", "--give-up-after", "2"]);
    expect(r.code).to.equal(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/trying again in 100ms \(1 of 2 failed rounds in a row\)$/);
    expect(lines[1]).to.match(/^qhooks: gave up after 2 failed rounds in a row \(--give-up-after 2\); the last: /);
  });

  it("export --watch gives up the same way when the collector stays away", async () => {
    await seedLog(sb.db, [{ ts: new Date(), event: "Stop", sessionId: "s1", decision: "none" }]);
    const r = await sb.run([
      "export",
      "--otlp",
      "http://127.0.0.1:1",
      "--watch",
      "--interval",
      "100ms",
      "--give-up-after",
      "2",
      "--cursor",
      `${sb.root}/cursor.json`,
    ]);
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr).to.match(/qhooks: gave up after 2 failed rounds in a row/);
  });
});
