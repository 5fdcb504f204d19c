// Shortening a text for a message: at most `max` characters, an ellipsis marking a cut.

/** `text`, or its first `max - 1` characters and "…". */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
