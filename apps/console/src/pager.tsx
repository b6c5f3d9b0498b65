/**
 * Previous/Next over a list paged by the API's cursors (extensions §3): `cursors` holds the cursor of
 * each page up to the one shown (the first page's is null), `next` the answer's `next_cursor`.
 */
export function Pager(props: {
  cursors: readonly (string | null)[];
  next: string | null | undefined;
  setCursors: (cursors: (string | null)[]) => void;
}) {
  const { cursors, next, setCursors } = props;
  return (
    <div class="pager">
      <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous page
      </button>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        Next page
      </button>
    </div>
  );
}
