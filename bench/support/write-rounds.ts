// The write load the in-process cost comparisons share (audit-cost.ts, feed-cost.ts): each server gets
// a project of its own with one 4 KiB file, then takes, one at a time, alternating a 4 KiB content update
// and a metadata update of that file, in alternating rounds (A B, B A, …) so that drift of the machine
// falls on both alike. Returns the median of each server's rounds' mean request times, in order.
import { markdownBytes } from '../lib/content.js';

export interface WriteRoundsResult {
  /** Per server, in the order given: the median of its rounds' mean request time, in ms. */
  readonly medianMs: readonly number[];
  /** Write requests made in all. */
  readonly requests: number;
}

export async function alternatingWriteRounds(o: {
  urls: readonly string[];
  apiKey: string;
  rounds: number;
  roundMs: number;
}): Promise<WriteRoundsResult> {
  const auth = { Authorization: `Bearer ${o.apiKey}` };
  const content = markdownBytes(4 * 1024);
  const variants = await Promise.all(
    o.urls.map(async (url, index) => {
      const project = (await (
        await fetch(`${url}/api/projects`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `variant-${index}` }),
        })
      ).json()) as { id: string };
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'text/markdown' }), 'doc.md');
      const uploaded = await fetch(`${url}/api/projects/${project.id}/files`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
      return { file: `${url}/api/projects/${project.id}/files/doc.md`, means: [] as number[] };
    }),
  );
  let requests = 0;
  const write = async (file: string, index: number) => {
    const response =
      index % 2 === 0
        ? await fetch(`${file}/content`, {
            method: 'PUT',
            headers: { ...auth, 'Content-Type': 'text/markdown' },
            body: Buffer.concat([Buffer.from(`# version ${index}\n`), content]),
          })
        : await fetch(file, {
            method: 'PUT',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ metadata: { round: index, tags: ['a', 'b'] } }),
          });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`write: ${response.status}`);
    requests++;
  };
  for (let round = 0; round < o.rounds; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const started = performance.now();
      let count = 0;
      while (performance.now() - started < o.roundMs) await write(variant.file, count++);
      variant.means.push((performance.now() - started) / count);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { medianMs: variants.map((variant) => median(variant.means)), requests };
}
