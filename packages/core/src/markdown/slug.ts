import GithubSlugger, { slug } from 'github-slugger';

/**
 * GitHub's heading anchor rule, the one rule of heading ids (rendered HTML, extensions §11) and of
 * Markdown link anchors (extensions §9): the heading's text, lowercased, with punctuation removed
 * (letters, marks, digits, `-` and `_` stay) and each space made a `-`. github-slugger is GitHub's rule
 * as a library (the regular expression of the characters it removes is generated from Unicode data).
 */
export const githubSlug = (headingText: string): string => slug(headingText);

/**
 * The ids of one document's headings, in order: a slug already given gets `-1`, `-2`… as on GitHub
 * (`# A`, `# A` → `a`, `a-1`). One per document.
 */
export class HeadingIds {
  private readonly slugger = new GithubSlugger();

  next(headingText: string): string {
    return this.slugger.slug(headingText);
  }
}
