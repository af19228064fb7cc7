// A button that copies a value and toasts the outcome (lib/copy.ts). Icon-only by default, with
// an accessible name; shows a check for a moment after copying.
import { Check, Copy } from "lucide-react";
import { type ComponentProps, useEffect, useState } from "react";
import { copyToClipboard } from "../../lib/copy.ts";
import { cn } from "../../lib/utils.ts";
import { Button } from "./button.tsx";

export function CopyButton({
  value,
  label = "Copy to clipboard",
  successMessage,
  children,
  className,
  variant = "ghost",
  size,
  ...props
}: Omit<ComponentProps<typeof Button>, "onClick" | "value"> & {
  value: string;
  /** The accessible name (and tooltip) of an icon-only button. */
  label?: string;
  successMessage?: string;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  const iconOnly = !children;
  const Icon = copied ? Check : Copy;
  return (
    <Button
      type="button"
      variant={variant}
      size={size ?? (iconOnly ? "icon" : "sm")}
      aria-label={iconOnly ? label : undefined}
      title={iconOnly ? label : undefined}
      className={cn(iconOnly && size === undefined && "size-7", className)}
      onClick={async () => setCopied(await copyToClipboard(value, successMessage))}
      {...props}
    >
      <Icon aria-hidden="true" className={cn(copied && "text-success")} />
      {children}
    </Button>
  );
}
