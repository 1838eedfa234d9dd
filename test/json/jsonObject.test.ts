import { expect } from "chai";
import { isJsonObject, objectOrJsonText } from "../../src/json/jsonObject.js";

describe("json: objects as hosts send them", () => {
  it("isJsonObject: an object, not null, an array or a scalar", () => {
    expect(isJsonObject({ a: 1 })).to.equal(true);
    expect(isJsonObject({})).to.equal(true);
    for (const v of [null, [], [1], "x", 1, true, undefined]) expect(isJsonObject(v), JSON.stringify(v)).to.equal(false);
  });

  it("objectOrJsonText: an object as it is, JSON text of an object parsed, anything else {}", () => {
    const given = { command: "ls" };
    expect(objectOrJsonText(given)).to.equal(given);
    expect(objectOrJsonText('{"command":"rm -rf /"}')).to.deep.equal({ command: "rm -rf /" });
    for (const v of ["[1,2]", "42", "{not json", "", null, 7, ["a"]]) expect(objectOrJsonText(v), JSON.stringify(v)).to.deep.equal({});
  });
});
