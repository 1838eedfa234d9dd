import { expect } from "chai";
import { canonicalJson, sha256Hex } from "../../src/json/canonicalHash.js";

describe("json: canonicalJson, one text for equal content", () => {
  it("sorts object keys at every depth, inside arrays too", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).to.equal('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it("keeps the order of arrays, which is content", () => {
    expect(canonicalJson([3, 1, 2])).to.equal("[3,1,2]");
    expect(canonicalJson([3, 1, 2])).to.not.equal(canonicalJson([1, 2, 3]));
  });

  it("writes scalars as JSON.stringify does", () => {
    expect(canonicalJson(null)).to.equal("null");
    expect(canonicalJson("x")).to.equal('"x"');
    expect(canonicalJson(1.5)).to.equal("1.5");
    expect(canonicalJson({ a: undefined, b: 1 })).to.equal('{"b":1}');
  });

  it("keeps a key named __proto__ as data", () => {
    const value = JSON.parse('{"b":1,"__proto__":{"polluted":true}}') as unknown;
    expect(canonicalJson(value)).to.equal('{"__proto__":{"polluted":true},"b":1}');
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it("hashes text as lowercase hex SHA-256", () => {
    expect(sha256Hex("")).to.equal("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).to.equal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
