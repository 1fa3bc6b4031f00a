import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The dev server proxies /v2 (REST and the notification websockets) to a
// nodedesk started with --listen 127.0.0.1:3080.
export default defineConfig({
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: {
    proxy: { '/v2': { target: 'http://127.0.0.1:3080', ws: true, changeOrigin: true } },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
