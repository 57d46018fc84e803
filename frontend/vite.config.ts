/// <reference types="vitest/config" />
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The build output (dist/) is embedded into the Go binary by main.go
// (//go:embed all:frontend/dist), so it must exist before any Go build.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Served from loopback or the app itself, never over a slow network:
    // one ~600 kB bundle (React + CodeMirror) is fine.
    chunkSizeWarningLimit: 1000,
  },
  test: {
    // Stores and api tests need no DOM; component tests opt in with
    // `// @vitest-environment happy-dom` at their top.
    environment: 'node',
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'eslint/**/*.test.js'],
  },
})
