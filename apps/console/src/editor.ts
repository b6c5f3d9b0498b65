import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState, RangeSetBuilder } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  EditorView,
  keymap,
  lineNumbers,
  ViewPlugin,
} from '@codemirror/view';
import { frontMatterLength, yamlLineTokens } from './frontmatter';

/** How far into a text its front matter is looked for (a block past it is shown as Markdown). */
const FRONT_MATTER_SCAN = 64 * 1024;

interface ParseInput {
  readonly length: number;
  read(from: number, to: number): string;
}

/**
 * The front matter block as one node of the Markdown tree, so its `---` lines are neither a rule nor a
 * setext heading's underline and its lines are not parsed as Markdown; its colours come from
 * `yamlColours` below.
 */
const frontMatterSyntax = {
  defineNodes: [{ name: 'FrontMatter', block: true }],
  parseBlock: [
    {
      name: 'FrontMatter',
      before: 'LinkReference',
      parse(
        cx: {
          lineStart: number;
          nextLine(): boolean;
          addElement(elt: unknown): void;
          elt(type: string, from: number, to: number): unknown;
        },
        line: { text: string },
      ) {
        if (cx.lineStart !== 0 || !/^---[ \t]*$/.test(line.text)) return false;
        const input = (cx as unknown as { input?: ParseInput }).input;
        if (!input) return false;
        const end = frontMatterLength(input.read(0, Math.min(input.length, FRONT_MATTER_SCAN)));
        if (end === 0) return false;
        while (cx.lineStart + line.text.length < end && cx.nextLine()) {}
        cx.nextLine();
        cx.addElement(cx.elt('FrontMatter', 0, end));
        return true;
      },
    },
  ],
};

function yamlDecorations(view: EditorView): DecorationSet {
  const doc = view.state.doc;
  const builder = new RangeSetBuilder<Decoration>();
  const end = frontMatterLength(doc.sliceString(0, Math.min(doc.length, FRONT_MATTER_SCAN)));
  if (end === 0) return builder.finish();
  const last = doc.lineAt(end).number;
  for (let n = 1; n <= last; n++) {
    const line = doc.line(n);
    for (const token of yamlLineTokens(line.text, n === 1 || n === last)) {
      builder.add(
        line.from + token.from,
        line.from + token.to,
        Decoration.mark({ class: `yaml-${token.part}` }),
      );
    }
  }
  return builder.finish();
}

/** The front matter's keys, values, comments and markers coloured as YAML (classes `yaml-*`). */
const yamlColours = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = yamlDecorations(view);
    }
    update(update: { docChanged: boolean; view: EditorView }) {
      if (update.docChanged) this.decorations = yamlDecorations(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/**
 * CodeMirror 6 in Markdown mode, the leading front matter coloured as YAML: its own chunk, loaded when
 * "Edit" is pressed, so the first load of the console stays small. Tab is left to the browser (focus
 * moves on), so the editor never traps the keyboard. `onChange` hears every change of the text.
 */
export function createEditor(parent: HTMLElement, text: string, label: string, onChange?: () => void) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        markdown({ extensions: [frontMatterSyntax] }),
        yamlColours,
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.();
        }),
        // The page's CSP admits CodeMirror's <style> elements by this nonce only.
        EditorView.cspNonce.of(
          document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '',
        ),
      ],
    }),
  });
  return {
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}

export type Editor = ReturnType<typeof createEditor>;
