import { expect } from "chai";
import { describeJsonError, jsonErrorOffset } from "../../src/json/describeJsonError.js";

/** What JSON.parse said about `text`, as describeJsonError reads it. */
function described(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return describeJsonError(text, e);
  }
  throw new Error(`${text} parsed`);
}

describe("json: describeJsonError, where a JSON text stops being JSON", () => {
  // Where V8 names a position, it is the same one: the walk follows the grammar as JSON.parse does.
  const sameAsV8: ReadonlyArray<readonly [string, number]> = [
    ['{"a":1,}', 7],
    ["[1,2", 4],
    ['{"a" 1}', 5],
    ['"abc', 4],
    ["[01]", 2],
    ["{}x", 2],
    ['"\\x"', 2],
    ['"a\u0001"', 2],
    ["[1 2]", 3],
    ['{"a":1 "b":2}', 7],
    ["{,}", 1],
    ["{]", 1],
    ["[[]", 3],
    ['{"a":[]]', 7],
    ['{"k":{}}}', 8],
    ['"\\u00e9\\n" x', 11],
    ["[1,\n2,\n3 4]", 9],
    ['{"a":"b"\n,"c" 1}', 14],
    ['"\\/\\b\\f\\r\\t\\"\\\\" x', 17],
  ];
  for (const [text, offset] of sameAsV8) {
    it(`${JSON.stringify(text)}: offset ${offset}, as V8 says`, () => {
      let v8: string | undefined;
      try {
        JSON.parse(text);
      } catch (e) {
        v8 = (e as Error).message;
      }
      expect(v8).to.match(new RegExp(`at position ${offset}\\b`));
      expect(jsonErrorOffset(text)).to.equal(offset);
    });
  }

  // Where V8 names none, or another, the offset points at the character a person would fix.
  const pointed: ReadonlyArray<readonly [string, number]> = [
    ['\n\n  {"a": tru}', 13],
    ['{"a":[1,{"b":nul}]}', 16],
    ["[,]", 1],
    ['{"a":}', 5],
    ["x", 0],
    ["", 0],
    ["   ", 3],
    ["-", 0],
    ["[-]", 1],
    ["[1.]", 2],
    ["[1e]", 2],
    ['"\\u12G4"', 2],
    ['"\\u12', 2],
    ['["\\', 3],
    ["[true, fals]", 11],
    ["[}", 1],
    ['{"a":[1,2],"b":{"c":nulx}}', 23],
    ["[-0.5e+3, 1E2, x]", 15],
    ["[1]\t\r\n x", 7],
    ['{"a" : 1 , "b" : [ ] , }', 23],
    ['[{"a":1}, {"b":2} 3]', 18],
    ["[[[1]]] ]", 8],
    ["[[1],]", 5],
    ['{"a":1}}', 7],
    ['{"a":{"b":}}', 10],
    ["{1:2}", 1],
    ['{"a":1,"b"}', 10],
    ['"\\u0041', 7],
    ['"\\"', 3],
    // A space is text inside a string; a digit 9 starts a number; a fraction and an exponent take every digit.
    ['["a b", x]', 8],
    ["[9 x]", 3],
    ["[1.25 x]", 6],
    ["[1e25 x]", 6],
  ];
  for (const [text, offset] of pointed) {
    it(`${JSON.stringify(text)}: offset ${offset}`, () => {
      expect(() => JSON.parse(text)).to.throw(SyntaxError);
      expect(jsonErrorOffset(text)).to.equal(offset);
    });
  }

  it("says the line and column, counting both from 1", () => {
    expect(described('{"a": tru}')).to.equal("line 1 column 10: Unexpected token '}'");
    expect(described('{\n  "a": tru,\n"b": 1}')).to.equal("line 2 column 11: Unexpected token ','");
    expect(described("[1,\n2,\n3 4]")).to.equal("line 3 column 3: Expected ',' or ']' after array element");
    expect(described("\n")).to.equal("line 2 column 1: Unexpected end of JSON input");
  });

  it("drops V8's position and its quote of the text: nothing of the content is echoed, and the message is one line", () => {
    expect(described('{"secret": "hunter2",\n oops}')).to.equal("line 2 column 2: Expected double-quoted property name");
    const long = `{"k": "${"s".repeat(40)}", "password": "hunter2" x}`;
    const message = described(long);
    expect(message).to.equal(`line 1 column ${long.indexOf(" x") + 2}: Expected ',' or '}' after property value`);
    const quoted = described('\n\n  {"a": tru}');
    expect(quoted).to.equal("line 3 column 12: Unexpected token '}'");
    expect(described("[,]")).to.equal("line 1 column 2: Unexpected token ','");
  });

  it("escapes the character V8 quotes when it is a line break: the message stays one line", () => {
    // The literal `tru` broken off by the end of its line: V8 names the newline itself.
    expect(described('{\n  "a": tru\n}')).to.equal("line 2 column 11: Unexpected token '\\n'");
  });

  it("reads an error that is not an Error by its text", () => {
    expect(describeJsonError("[x", "odd failure")).to.equal("line 1 column 2: odd failure");
  });
});
