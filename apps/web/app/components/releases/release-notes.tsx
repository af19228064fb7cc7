// Release notes from Markdown (GitHub flavoured). Raw HTML in the notes is never rendered as
// HTML: react-markdown turns it into text, and unsafe link targets (javascript: …) are dropped
// by its default URL transform. Headings are shifted down to sit below the page's own.
import type { ComponentProps } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

const heading = (Tag: "h3" | "h4" | "h5" | "h6", className: string) =>
  function Heading({ node: _node, ...props }: ComponentProps<"h3"> & { node?: unknown }) {
    return <Tag className={className} {...props} />;
  };

const components: Components = {
  h1: heading("h3", "mt-6 mb-3 text-xl font-semibold tracking-tight first:mt-0"),
  h2: heading("h4", "mt-6 mb-3 text-lg font-semibold tracking-tight first:mt-0"),
  h3: heading("h5", "mt-5 mb-2 text-base font-semibold first:mt-0"),
  h4: heading("h6", "mt-4 mb-2 text-sm font-semibold first:mt-0"),
  h5: heading("h6", "mt-4 mb-2 text-sm font-semibold first:mt-0"),
  h6: heading("h6", "mt-4 mb-2 text-sm font-semibold text-muted-foreground first:mt-0"),
  p: ({ node: _node, ...props }) => <p className="my-3 leading-7 first:mt-0 last:mb-0" {...props} />,
  a: ({ node: _node, ...props }) => (
    <a
      className="font-medium text-primary underline underline-offset-4 hover:no-underline"
      rel="nofollow ugc noopener noreferrer"
      {...props}
    />
  ),
  ul: ({ node: _node, ...props }) => <ul className="my-3 list-disc space-y-1 pl-6" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="my-3 list-decimal space-y-1 pl-6" {...props} />,
  li: ({ node: _node, ...props }) => <li className="leading-7 [&>input]:mr-2" {...props} />,
  blockquote: ({ node: _node, ...props }) => (
    <blockquote className="my-4 border-l-4 border-border pl-4 text-muted-foreground" {...props} />
  ),
  hr: ({ node: _node, ...props }) => <hr className="my-6 border-border" {...props} />,
  pre: ({ node: _node, ...props }) => (
    <pre
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling listing must be reachable by keyboard
      tabIndex={0}
      className="my-4 overflow-x-auto rounded-lg border border-border bg-muted p-4 text-sm leading-6 [&>code]:bg-transparent [&>code]:p-0"
      {...props}
    />
  ),
  code: ({ node: _node, className, ...props }) => (
    <code
      className={`rounded bg-muted px-1.5 py-0.5 font-mono text-[0.875em] ${className ?? ""}`}
      {...props}
    />
  ),
  table: ({ node: _node, ...props }) => (
    <div className="my-4 overflow-x-auto">
      <table className="w-full border-collapse text-sm" {...props} />
    </div>
  ),
  th: ({ node: _node, ...props }) => (
    <th className="border border-border bg-muted px-3 py-2 text-left font-semibold" {...props} />
  ),
  td: ({ node: _node, ...props }) => <td className="border border-border px-3 py-2 align-top" {...props} />,
  img: ({ node: _node, alt, ...props }) => (
    <img className="my-4 h-auto max-w-full rounded-md" loading="lazy" alt={alt ?? ""} {...props} />
  ),
};

export function ReleaseNotes({ markdown }: { markdown: string }) {
  return (
    <div className="break-words text-[0.9375rem]" data-testid="release-notes">
      <Markdown remarkPlugins={[remarkGfm]} components={components}>
        {markdown}
      </Markdown>
    </div>
  );
}
