import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { searchForWorkspaceRoot } from 'vite';

// `npm run dev` proxies /v2 (REST and the notification websockets) to a
// nodedesk started with --listen 127.0.0.1:3080. nodedesk refuses writes
// from pages of another origin, so the proxy drops the dev page's Origin.
const nodedesk = process.env.NODEDESK_URL ?? 'http://127.0.0.1:3080';

export default defineConfig({
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: {
    // The node pictures are the server's symbol files (src/lib/symbols.ts
    // bundles ../api/symbols/*.svg).
    fs: { allow: [searchForWorkspaceRoot(process.cwd()), '../api/symbols'] },
    proxy: {
      '/v2': {
        target: nodedesk,
        ws: true,
        changeOrigin: true,
        configure: (proxy) => {
          proxy.on('proxyReq', (req) => req.removeHeader('origin'));
          proxy.on('proxyReqWs', (req) => req.removeHeader('origin'));
        },
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
