import { expect } from "chai";
import { HIDDEN, URL_PASSWORD_SOURCE, shownUrl, withoutUrlCredentials } from "../../src/text/shownUrl.js";

describe("text: shownUrl, a URL with no secret in it", () => {
  it("hides the password and keeps the user name", () => {
    expect(HIDDEN).to.equal("***");
    expect(shownUrl("postgres://alice:s3cret@db.example:5432/log")).to.equal("postgres://alice:***@db.example:5432/log");
  });

  it("shows a URL with nothing to hide as it was written, not in URL's own form", () => {
    expect(shownUrl("HTTP://Example.com")).to.equal("HTTP://Example.com");
    expect(shownUrl("postgres://alice@db/log?sslmode=require")).to.equal("postgres://alice@db/log?sslmode=require");
  });

  it("hides the value of every query parameter whose name says secret, and no other", () => {
    expect(shownUrl("postgres://db/log?sslmode=require&password=p1&sslpassword=p2&sslkey=k&passfile=f")).to.equal(
      "postgres://db/log?sslmode=require&password=***&sslpassword=***&sslkey=***&passfile=***",
    );
    expect(shownUrl("https://h/x?api_key=1&API-KEY=2&my_token=3&X-Amz-Signature=4&page=2")).to.equal(
      "https://h/x?api_key=***&API-KEY=***&my_token=***&X-Amz-Signature=***&page=2",
    );
    expect(shownUrl("https://h/x?pwd=1&secret=2&auth=3&credentials=4&sig=5&passphrase=6")).to.equal(
      "https://h/x?pwd=***&secret=***&auth=***&credentials=***&sig=***&passphrase=***",
    );
  });

  it("knows the spellings of each secret word", () => {
    const names = [
      "passwd",
      "password",
      "apikey",
      "api-key",
      "accesskey",
      "access_key",
      "privatekey",
      "private-key",
      "credential",
      "db_password",
      "authorization",
    ];
    const query = names.map((n) => `${n}=v`).join("&");
    expect(shownUrl(`https://h/?${query}`)).to.equal(`https://h/?${names.map((n) => `${n}=***`).join("&")}`);
  });

  it("matches a secret parameter's whole name: one that only contains a secret word elsewhere is shown", () => {
    expect(shownUrl("https://h/x?tokens_left=5&sslkeylog=1&authority=x")).to.equal("https://h/x?tokens_left=5&sslkeylog=1&authority=x");
    expect(shownUrl(`https://h/x?${"a".repeat(41)}token=1`)).to.equal(`https://h/x?${"a".repeat(41)}token=1`);
    expect(shownUrl(`https://h/x?${"a".repeat(40)}token=1`)).to.equal(`https://h/x?${"a".repeat(40)}token=***`);
  });

  it("hides every value of a repeated secret parameter", () => {
    expect(shownUrl("https://h/?token=a&token=b")).to.equal("https://h/?token=***");
  });

  it("masks credentials in text that is not a URL", () => {
    expect(shownUrl("not a url but postgres://bob:pw@host/db")).to.equal("not a url but postgres://bob:***@host/db");
    expect(shownUrl("just words")).to.equal("just words");
  });
});

describe("text: withoutUrlCredentials, passwords of URLs inside text", () => {
  it("masks every scheme://user:password@ in a text", () => {
    expect(withoutUrlCredentials("a https://u:p@h and redis://:pw@cache:6379 end")).to.equal("a https://u:***@h and redis://:***@cache:6379 end");
  });

  it("matches again from the start on every call (the pattern is global)", () => {
    const text = "x postgres://a:b@h";
    expect(withoutUrlCredentials(text)).to.equal("x postgres://a:***@h");
    expect(withoutUrlCredentials(text)).to.equal("x postgres://a:***@h");
  });

  it("leaves text without :// alone, and a password already hidden", () => {
    expect(withoutUrlCredentials("user:pass@host")).to.equal("user:pass@host");
    expect(withoutUrlCredentials("https://u:***@h")).to.equal("https://u:***@h");
    expect(withoutUrlCredentials("https://u:[REDACTED:url-password]@h")).to.equal("https://u:[REDACTED:url-password]@h");
  });

  it("keeps a user without a password, and a scheme with +, . and -", () => {
    expect(withoutUrlCredentials("https://u@h/p")).to.equal("https://u@h/p");
    expect(withoutUrlCredentials("git+ssh://u:p@h svn.x-y://u:p@h")).to.equal("git+ssh://u:***@h svn.x-y://u:***@h");
  });

  it("builds a pattern whose groups name the part kept and the password", () => {
    const m = new RegExp(URL_PASSWORD_SOURCE, "i").exec("ftp://me:pw@host");
    expect(m?.groups).to.deep.equal({ key: "ftp://me:", value: "pw" });
  });
});
