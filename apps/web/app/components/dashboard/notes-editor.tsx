// Release notes in Markdown with Write and Preview tabs. The textarea stays mounted (hidden) on
// the Preview tab so the form still posts the notes.
import { Eye, Pencil } from "lucide-react";
import { useId } from "react";
import { Label } from "../ui/label.tsx";
import { Markdown } from "../ui/markdown.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../ui/tabs.tsx";
import { Textarea } from "../ui/textarea.tsx";

export function NotesEditor({
  value,
  onChange,
  name = "notes",
  label = "Release notes",
  error,
  rows = 10,
}: {
  value: string;
  onChange: (value: string) => void;
  name?: string;
  label?: string;
  error?: string;
  rows?: number;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="grid grid-cols-1 gap-2">
      <Tabs defaultValue="write" className="grid grid-cols-1 gap-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <Label htmlFor={id}>{label}</Label>
          <TabsList aria-label={`${label} editor`}>
            <TabsTrigger value="write">
              <Pencil aria-hidden="true" />
              Write
            </TabsTrigger>
            <TabsTrigger value="preview">
              <Eye aria-hidden="true" />
              Preview
            </TabsTrigger>
          </TabsList>
        </div>
        <TabsContent value="write" forceMount className="data-[state=inactive]:hidden">
          <Textarea
            id={id}
            name={name}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={rows}
            className="font-mono text-[13px] leading-relaxed"
            placeholder={"## What's new\n\n- Faster downloads\n- Fixed the `--quiet` flag"}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : hintId}
          />
        </TabsContent>
        <TabsContent
          value="preview"
          className="min-h-32 rounded-md border border-border bg-background px-4 py-3"
          data-testid="notes-preview"
        >
          {value.trim() ? (
            <Markdown>{value}</Markdown>
          ) : (
            <p className="text-sm text-muted-foreground">Nothing to preview.</p>
          )}
        </TabsContent>
      </Tabs>
      {error ? (
        <p id={`${id}-error`} className="text-sm text-destructive">
          {error}
        </p>
      ) : (
        <p id={hintId} className="text-sm text-muted-foreground">
          Markdown with GitHub extensions (tables, task lists). HTML is shown as text.
        </p>
      )}
    </div>
  );
}
