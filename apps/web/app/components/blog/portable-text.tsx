// The one renderer of a post's body, the block array of spec §3 (Portable Text), for both
// content sources: paragraphs, headings (with anchors), lists, quotes, the usual marks and
// links, code listings, images and tables. Unknown block types render nothing.
import { PortableText, type PortableTextComponents, toPlainText } from "@portabletext/react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import type {
  PortableTextCode,
  PortableTextImage,
  PortableTextNode,
  PortableTextTable,
} from "../../lib/blog/types.ts";
import { cn } from "../../lib/utils.ts";
import { CopyButton } from "../ui/copy-button.tsx";

export function headingId(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

function Heading({
  as: Tag,
  value,
  className,
  children,
}: {
  as: "h2" | "h3" | "h4";
  value: unknown;
  className: string;
  children?: ReactNode;
}) {
  const id = headingId(toPlainText(value as never));
  return (
    <Tag
      id={id || undefined}
      className={cn("group scroll-mt-24 font-bold tracking-tight text-foreground", className)}
    >
      {children}
      {id ? (
        <a
          href={`#${id}`}
          className="ml-2 text-muted-foreground no-underline opacity-0 transition-opacity group-hover:opacity-100 focus-visible:opacity-100"
          aria-label="Link to this section"
        >
          #
        </a>
      ) : null}
    </Tag>
  );
}

function CodeListing({ value }: { value: PortableTextCode }) {
  const label = value.filename ?? value.language;
  return (
    <figure className="my-6 min-w-0 overflow-hidden rounded-xl border border-border bg-[#0f172a] text-slate-100">
      <figcaption className="flex items-center justify-between gap-2 border-b border-white/10 py-1.5 pr-1.5 pl-4 text-xs text-slate-300">
        <span className="truncate font-mono">{label ?? "text"}</span>
        <CopyButton
          value={value.code}
          label="Copy code"
          className="text-slate-300 hover:bg-white/10 hover:text-white"
        />
      </figcaption>
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling listing must be reachable by keyboard
        tabIndex={0}
        className="overflow-x-auto px-4 py-3 font-mono text-[13px] leading-6"
      >
        <code>{value.code}</code>
      </pre>
    </figure>
  );
}

function Figure({ value }: { value: PortableTextImage }) {
  if (!value.url) return null;
  return (
    <figure className="my-8">
      <img
        src={value.url}
        alt={value.alt ?? ""}
        loading="lazy"
        className="w-full rounded-xl border border-border bg-muted"
      />
      {value.caption ? (
        <figcaption className="mt-2 text-center text-sm text-muted-foreground">{value.caption}</figcaption>
      ) : null}
    </figure>
  );
}

function Table({ value }: { value: PortableTextTable }) {
  const [head, ...rows] = value.rows ?? [];
  if (!head) return null;
  return (
    <div
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling table must be reachable by keyboard
      tabIndex={0}
      className="my-6 overflow-x-auto rounded-xl border border-border"
    >
      <table className="w-full border-collapse text-left text-sm">
        <thead className="bg-muted">
          <tr>
            {head.cells.map((cell, i) => (
              <th
                key={i}
                scope="col"
                className={cn("px-4 py-2 font-semibold", i > 0 ? "whitespace-nowrap" : "min-w-40")}
              >
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row._key} className="border-t border-border">
              {row.cells.map((cell, i) => (
                <td
                  key={i}
                  className={cn("px-4 py-2 align-top tabular-nums", i > 0 ? "whitespace-nowrap" : "min-w-40")}
                >
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const components: PortableTextComponents = {
  block: {
    normal: ({ children }) => <p className="my-5 leading-7">{children}</p>,
    h1: ({ children, value }) => (
      <Heading as="h2" value={value} className="mt-12 mb-4 text-2xl">
        {children}
      </Heading>
    ),
    h2: ({ children, value }) => (
      <Heading as="h2" value={value} className="mt-12 mb-4 text-2xl">
        {children}
      </Heading>
    ),
    h3: ({ children, value }) => (
      <Heading as="h3" value={value} className="mt-9 mb-3 text-xl">
        {children}
      </Heading>
    ),
    h4: ({ children, value }) => (
      <Heading as="h4" value={value} className="mt-7 mb-2 text-lg">
        {children}
      </Heading>
    ),
    blockquote: ({ children }) => (
      <blockquote className="my-6 border-l-4 border-primary/40 pl-4 text-muted-foreground italic">
        {children}
      </blockquote>
    ),
  },
  list: {
    bullet: ({ children }) => (
      <ul className="my-5 list-disc space-y-2 pl-6 marker:text-muted-foreground">{children}</ul>
    ),
    number: ({ children }) => (
      <ol className="my-5 list-decimal space-y-2 pl-6 marker:text-muted-foreground">{children}</ol>
    ),
  },
  listItem: {
    bullet: ({ children }) => <li className="pl-1 leading-7 [&>ol]:my-2 [&>ul]:my-2">{children}</li>,
    number: ({ children }) => <li className="pl-1 leading-7 [&>ol]:my-2 [&>ul]:my-2">{children}</li>,
  },
  marks: {
    strong: ({ children }) => <strong className="font-semibold text-foreground">{children}</strong>,
    em: ({ children }) => <em>{children}</em>,
    code: ({ children }) => (
      <code className="rounded-md bg-muted px-1.5 py-0.5 font-mono text-[0.875em] break-words">
        {children}
      </code>
    ),
    "strike-through": ({ children }) => <s>{children}</s>,
    underline: ({ children }) => <span className="underline">{children}</span>,
    link: ({ children, value }) => {
      const href = typeof value?.href === "string" ? value.href : "";
      const className = "font-medium text-primary underline underline-offset-4 hover:no-underline";
      if (href.startsWith("/") && !href.startsWith("//")) {
        return (
          <Link to={href} className={className}>
            {children}
          </Link>
        );
      }
      if (!/^(https?:|mailto:)/i.test(href)) return <>{children}</>;
      return (
        <a href={href} className={className} rel="noopener noreferrer">
          {children}
        </a>
      );
    },
  },
  types: {
    code: ({ value }) => <CodeListing value={value as PortableTextCode} />,
    image: ({ value }) => <Figure value={value as PortableTextImage} />,
    table: ({ value }) => <Table value={value as PortableTextTable} />,
  },
  unknownType: () => null,
  unknownBlockStyle: ({ children }) => <p className="my-5 leading-7">{children}</p>,
};

export function PostBody({ content, className }: { content: PortableTextNode[]; className?: string }) {
  return (
    <div className={cn("min-w-0 text-[1.0625rem] text-foreground/90 break-words", className)}>
      <PortableText value={content as never} components={components} onMissingComponent={false} />
    </div>
  );
}

/** The body's second-level headings, for the table of contents. */
export function postOutline(content: PortableTextNode[]): { id: string; text: string }[] {
  return content.flatMap((block) => {
    if (block._type !== "block" || (block.style !== "h2" && block.style !== "h1")) return [];
    const text = block.children.map((c) => c.text).join("");
    const id = headingId(text);
    return id ? [{ id, text }] : [];
  });
}
