import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.ts';

export default defineConfig({
  test: {
    projects,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
