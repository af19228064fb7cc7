import { describe, expect, it } from "vitest";
import {
  negotiateSimpleFormat,
  renderProjectList,
  renderProjectPage,
  SIMPLE_HTML,
  SIMPLE_JSON,
  type SimpleFile,
} from "./simple-pages.ts";

const JSON_FORMAT = { kind: "json", type: SIMPLE_JSON } as const;
const HTML_FORMAT = { kind: "html", type: "text/html" } as const;

const wheel: SimpleFile = {
  filename: "acme_sdk-1.0-py3-none-any.whl",
  url: "https://p.example/pypi/acme/sdk/files/1.0/acme_sdk-1.0-py3-none-any.whl",
  sha256: "a".repeat(64),
  size: 1234,
  uploadTime: "2026-12-07T10:00:00.000Z",
  requiresPython: ">=3.8,<4",
  metadataSha256: "b".repeat(64),
  yanked: false,
};
const sdist: SimpleFile = {
  ...wheel,
  filename: "acme_sdk-1.0.tar.gz",
  url: "https://p.example/pypi/acme/sdk/files/1.0/acme_sdk-1.0.tar.gz",
  requiresPython: null,
  metadataSha256: null,
  yanked: 'broken "build" <sorry>',
};

describe("negotiateSimpleFormat (PEP 691)", () => {
  it("answers what pip asks for: JSON first, then the versioned HTML, then text/html", () => {
    const pip = `${SIMPLE_JSON}, ${SIMPLE_HTML}; q=0.1, text/html; q=0.01`;
    expect(negotiateSimpleFormat(pip)).toEqual({ kind: "json", type: SIMPLE_JSON });
    expect(negotiateSimpleFormat(`${SIMPLE_JSON};q=0.2, ${SIMPLE_HTML}`)).toEqual({
      kind: "html",
      type: SIMPLE_HTML,
    });
    expect(negotiateSimpleFormat(`text/html, ${SIMPLE_JSON}`)).toEqual(JSON_FORMAT);
    expect(negotiateSimpleFormat(`text/html, ${SIMPLE_JSON};q=0`)).toEqual(HTML_FORMAT);
  });

  it("answers HTML without a header or for */*, JSON for the latest alias, nothing for the unknown", () => {
    expect(negotiateSimpleFormat(undefined)).toEqual(HTML_FORMAT);
    expect(negotiateSimpleFormat("*/*")).toEqual(HTML_FORMAT);
    expect(negotiateSimpleFormat("text/*")).toEqual(HTML_FORMAT);
    expect(negotiateSimpleFormat("application/*;q=0.5, image/png")).toEqual(JSON_FORMAT);
    expect(negotiateSimpleFormat("application/vnd.pypi.simple.latest+json")).toEqual(JSON_FORMAT);
    expect(negotiateSimpleFormat("application/json")).toBeUndefined();
    expect(negotiateSimpleFormat("text/html", SIMPLE_JSON)).toEqual(JSON_FORMAT);
    expect(negotiateSimpleFormat(undefined, "application/xml")).toBeUndefined();
  });
});

describe("the simple pages", () => {
  it("write a project's files in HTML with hashes, requires-python, metadata and yanked escaped", () => {
    const page = renderProjectPage(HTML_FORMAT, {
      name: "acme-sdk",
      versions: ["1.0"],
      files: [wheel, sdist],
    });
    expect(page.contentType).toBe("text/html; charset=utf-8");
    expect(page.body).toContain('<meta name="pypi:repository-version" content="1.1">');
    expect(page.body).toContain(
      `<a href="${wheel.url}#sha256=${wheel.sha256}" data-requires-python="&gt;=3.8,&lt;4" data-dist-info-metadata="sha256=${"b".repeat(64)}" data-core-metadata="sha256=${"b".repeat(64)}">acme_sdk-1.0-py3-none-any.whl</a><br />`,
    );
    expect(page.body).toContain(
      `<a href="${sdist.url}#sha256=${sdist.sha256}" data-yanked="broken &quot;build&quot; &lt;sorry&gt;">acme_sdk-1.0.tar.gz</a>`,
    );
  });

  it("write them in JSON with PEP 700's sizes, upload times and versions", () => {
    const page = renderProjectPage(JSON_FORMAT, {
      name: "acme-sdk",
      versions: ["1.0"],
      files: [wheel, sdist],
    });
    expect(page.contentType).toBe(SIMPLE_JSON);
    expect(JSON.parse(page.body)).toEqual({
      meta: { "api-version": "1.1" },
      name: "acme-sdk",
      versions: ["1.0"],
      files: [
        {
          filename: wheel.filename,
          url: wheel.url,
          hashes: { sha256: wheel.sha256 },
          "requires-python": ">=3.8,<4",
          "core-metadata": { sha256: "b".repeat(64) },
          yanked: false,
          size: 1234,
          "upload-time": wheel.uploadTime,
        },
        {
          filename: sdist.filename,
          url: sdist.url,
          hashes: { sha256: sdist.sha256 },
          "core-metadata": false,
          yanked: 'broken "build" <sorry>',
          size: 1234,
          "upload-time": sdist.uploadTime,
        },
      ],
    });
  });

  it("list the distributions by their normalised names", () => {
    const projects = [{ name: "acme-sdk", displayName: "Acme_SDK" }];
    expect(renderProjectList(HTML_FORMAT, projects).body).toContain('<a href="acme-sdk/">Acme_SDK</a><br />');
    expect(JSON.parse(renderProjectList(JSON_FORMAT, projects).body)).toEqual({
      meta: { "api-version": "1.1" },
      projects: [{ name: "Acme_SDK" }],
    });
  });
});
