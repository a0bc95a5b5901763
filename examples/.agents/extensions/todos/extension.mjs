#!/usr/bin/env node
// The nimlet spec's JavaScript example, finished: lists TODO/FIXME comments in the workspace.
import { readdirSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import readline from 'node:readline'

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n')

send({
  type: 'register',
  commands: [{ name: 'todos', description: 'List TODO and FIXME comments' }],
  tools: [{
    name: 'list_todos',
    description: 'List TODO and FIXME comments as path:line text.',
    input_schema: { type: 'object', properties: {} },
    capabilities: ['read'],
  }],
  events: ['turn_end'],
})

function files(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...files(path))
    else out.push(path)
  }
  return out
}

async function todos() {
  const found = []
  for (const path of files('.')) {
    const lines = (await readFile(path, 'utf8')).split('\n')
    lines.forEach((text, index) => {
      if (/\b(TODO|FIXME)\b/.test(text)) found.push(`${path}:${index + 1} ${text.trim()}`)
    })
  }
  return found.join('\n') || 'no TODO or FIXME comments'
}

async function handle(message) {
  switch (message.type) {
    case 'tool':
      send({ type: 'response', id: message.id, content: await todos() })
      break
    case 'command':
      send({ type: 'response', id: message.id, message: await todos() })
      break
    case 'event':
      send({ type: 'response', id: message.id })
      break
    case 'shutdown':
      process.exit(0)
  }
}

const input = readline.createInterface({ input: process.stdin })
for await (const line of input) {
  if (line.trim()) await handle(JSON.parse(line))
}
