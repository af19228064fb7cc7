// Release notes and descriptions as Markdown (GitHub flavour). Raw HTML in the source is shown
// as text, never rendered (react-markdown's default), and unsafe link protocols are dropped.
import type { ComponentProps } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { cn } from "../../lib/utils.ts";

const components: Components = {
  h1: ({ node: _, ...props }) => <h2 className="mt-6 mb-3 text-xl font-semibold first:mt-0" {...props} />,
  h2: ({ node: _, ...props }) => <h3 className="mt-6 mb-3 text-lg font-semibold first:mt-0" {...props} />,
  h3: ({ node: _, ...props }) => <h4 className="mt-5 mb-2 text-base font-semibold first:mt-0" {...props} />,
  h4: ({ node: _, ...props }) => <h5 className="mt-4 mb-2 text-sm font-semibold first:mt-0" {...props} />,
  h5: ({ node: _, ...props }) => <h6 className="mt-4 mb-2 text-sm font-semibold first:mt-0" {...props} />,
  h6: ({ node: _, ...props }) => <h6 className="mt-4 mb-2 text-sm font-semibold first:mt-0" {...props} />,
  p: ({ node: _, ...props }) => <p className="my-3 leading-relaxed first:mt-0 last:mb-0" {...props} />,
  a: ({ node: _, ...props }) => (
    <a
      className="font-medium text-primary underline underline-offset-2 hover:no-underline"
      rel="noopener noreferrer nofollow ugc"
      target="_blank"
      {...props}
    />
  ),
  ul: ({ node: _, ...props }) => <ul className="my-3 list-disc space-y-1 pl-6" {...props} />,
  ol: ({ node: _, ...props }) => <ol className="my-3 list-decimal space-y-1 pl-6" {...props} />,
  li: ({ node: _, ...props }) => <li className="[&>input]:mr-1.5" {...props} />,
  blockquote: ({ node: _, ...props }) => (
    <blockquote className="my-3 border-l-4 border-border pl-4 text-muted-foreground" {...props} />
  ),
  code: ({ node: _, className, ...props }) => (
    <code
      className={cn(
        "rounded bg-muted px-1 py-0.5 font-mono text-[0.85em] [pre_&]:bg-transparent [pre_&]:p-0",
        className,
      )}
      {...props}
    />
  ),
  pre: ({ node: _, ...props }) => (
    <pre
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling listing must be reachable by keyboard
      tabIndex={0}
      className="my-3 overflow-x-auto rounded-md border border-border bg-muted p-3 text-sm"
      {...props}
    />
  ),
  hr: ({ node: _, ...props }) => <hr className="my-6 border-border" {...props} />,
  table: ({ node: _, ...props }) => (
    <div className="my-3 overflow-x-auto">
      <table className="w-full border-collapse text-sm" {...props} />
    </div>
  ),
  th: ({ node: _, ...props }) => (
    <th className="border border-border bg-muted px-3 py-1.5 text-left font-semibold" {...props} />
  ),
  td: ({ node: _, ...props }) => <td className="border border-border px-3 py-1.5" {...props} />,
  img: ({ node: _, alt, ...props }) => (
    <img className="my-3 max-w-full rounded-md" alt={alt ?? ""} {...props} />
  ),
};

export function Markdown({ children, className, ...props }: ComponentProps<"div"> & { children: string }) {
  return (
    <div className={cn("break-words text-sm text-foreground", className)} {...props}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {children}
      </ReactMarkdown>
    </div>
  );
}
