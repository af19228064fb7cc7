// Markdown (GitHub flavour) to the block array of spec §3, so the posts shipped in the
// repository are rendered by the same Portable Text components as the content service's posts
// and their reading time is counted the same way. Supported: headings, paragraphs, emphasis,
// strong, strike-through, inline code, links, bullet and numbered lists (nested), quotes, code
// listings (```lang title="file"```), images on their own line and tables. Raw HTML is dropped.
import type { Code, List, Nodes, PhrasingContent, Root, Table } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import type {
  PortableTextMarkDef,
  PortableTextNode,
  PortableTextSpan,
  PortableTextTextBlock,
} from "./types.ts";

const parser = unified().use(remarkParse).use(remarkGfm);

export function markdownToBlocks(markdown: string): PortableTextNode[] {
  const root = parser.runSync(parser.parse(markdown)) as Root;
  const out: PortableTextNode[] = [];
  let next = 0;
  const key = () => `b${(next++).toString(36)}`;

  const textBlock = (
    children: PhrasingContent[],
    extra: Omit<PortableTextTextBlock, "_type" | "_key" | "children" | "markDefs">,
  ): PortableTextTextBlock | null => {
    const blockKey = key();
    const markDefs: PortableTextMarkDef[] = [];
    const spans: PortableTextSpan[] = [];
    const walk = (nodes: PhrasingContent[], marks: string[]) => {
      for (const node of nodes) {
        switch (node.type) {
          case "text":
            spans.push(span(node.value.replace(/\s*\n\s*/g, " "), marks));
            break;
          case "inlineCode":
            spans.push(span(node.value, [...marks, "code"]));
            break;
          case "strong":
            walk(node.children, [...marks, "strong"]);
            break;
          case "emphasis":
            walk(node.children, [...marks, "em"]);
            break;
          case "delete":
            walk(node.children, [...marks, "strike-through"]);
            break;
          case "link": {
            const linkKey = `${blockKey}l${markDefs.length}`;
            markDefs.push({ _type: "link", _key: linkKey, href: node.url });
            walk(node.children, [...marks, linkKey]);
            break;
          }
          case "break":
            spans.push(span("\n", marks));
            break;
          default:
            // Inline images, footnote references and raw HTML have no place in a text block.
            break;
        }
      }
    };
    const span = (text: string, marks: string[]): PortableTextSpan => ({
      _type: "span",
      _key: `${blockKey}s${spans.length}`,
      text,
      marks,
    });
    walk(children, []);
    if (spans.every((s) => s.text.trim() === "")) return null;
    return { _type: "block", _key: blockKey, ...extra, children: spans, markDefs };
  };

  const push = (block: PortableTextNode | null) => {
    if (block) out.push(block);
  };

  const list = (node: List, level: number) => {
    for (const item of node.children) {
      let first = true;
      for (const child of item.children) {
        if (child.type === "paragraph" && first) {
          push(
            textBlock(child.children, {
              style: "normal",
              listItem: node.ordered ? "number" : "bullet",
              level,
            }),
          );
          first = false;
        } else if (child.type === "list") {
          list(child, level + 1);
        } else {
          visit(child);
        }
      }
    }
  };

  const visit = (node: Nodes) => {
    switch (node.type) {
      case "heading":
        push(textBlock(node.children, { style: `h${Math.min(Math.max(node.depth, 2), 4)}` }));
        break;
      case "paragraph": {
        const [only] = node.children;
        if (node.children.length === 1 && only?.type === "image") {
          out.push({
            _type: "image",
            _key: key(),
            url: only.url,
            alt: only.alt ?? "",
            caption: only.title ?? undefined,
          });
        } else {
          push(textBlock(node.children, { style: "normal" }));
        }
        break;
      }
      case "blockquote":
        for (const child of node.children) {
          if (child.type === "paragraph") push(textBlock(child.children, { style: "blockquote" }));
          else visit(child);
        }
        break;
      case "list":
        list(node, 1);
        break;
      case "code":
        out.push(codeBlock(node, key()));
        break;
      case "table":
        out.push(tableBlock(node, key()));
        break;
      default:
        // Thematic breaks, raw HTML and definitions render nothing.
        break;
    }
  };

  for (const node of root.children) visit(node);
  return out;
}

function codeBlock(node: Code, key: string): PortableTextNode {
  const filename = node.meta ? /title="([^"]+)"/.exec(node.meta)?.[1] : undefined;
  return {
    _type: "code",
    _key: key,
    code: node.value,
    ...(node.lang ? { language: node.lang } : {}),
    ...(filename ? { filename } : {}),
  };
}

function tableBlock(node: Table, key: string): PortableTextNode {
  return {
    _type: "table",
    _key: key,
    rows: node.children.map((row, r) => ({
      _key: `${key}r${r}`,
      cells: row.children.map((cell) => plainText(cell.children)),
    })),
  };
}

function plainText(nodes: PhrasingContent[]): string {
  return nodes
    .map((node) => {
      if (node.type === "text" || node.type === "inlineCode") return node.value;
      if ("children" in node) return plainText(node.children as PhrasingContent[]);
      return "";
    })
    .join("");
}
