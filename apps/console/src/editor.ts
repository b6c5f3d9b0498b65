import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';

/**
 * CodeMirror 6 in Markdown mode: its own chunk, loaded when "Edit" is pressed, so the first load of the
 * console stays small. Tab is left to the browser (focus moves on), so the editor never traps the keyboard.
 */
export function createEditor(parent: HTMLElement, text: string, label: string) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        markdown(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
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
