/** A unified diff (`text/x-diff`) shown line by line, additions and deletions marked for every reader. */
export function DiffView({ text, label }: { text: string; label: string }) {
  const lines = text.split('\n');
  // The file headers (`--- a/…`, `+++ b/…`) come before the first hunk only: after it, `----` is a
  // removed line that happens to start with dashes.
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'));
  return (
    <ScrollPre label={label} class="diff">
      {lines.map((line, i) => {
        const kind =
          firstHunk < 0 || i < firstHunk
            ? 'head'
            : line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : 'same';
        return (
          <span key={i} class={`line ${kind}`}>
            {kind === 'add' && <span class="sr-only">added: </span>}
            {kind === 'del' && <span class="sr-only">removed: </span>}
            {line}
            {'\n'}
          </span>
        );
      })}
    </ScrollPre>
  );
}

/** Preformatted text that may scroll: a labelled region that takes keyboard focus (WCAG 2.1.1). */
export function ScrollPre(props: { label: string; class: string; children: preact.ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus.
    <section aria-label={props.label} tabIndex={0} class="scroll">
      <pre class={props.class}>{props.children}</pre>
    </section>
  );
}
