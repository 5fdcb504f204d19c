// Imports every entry point of every installed @paykit package (each exports map key but
// ./package.json) under the Node running it, and prints how many exports each has.
import { readdirSync, readFileSync } from 'node:fs';

const counts = {};
for (const dir of readdirSync('node_modules/@paykit')) {
  const manifest = JSON.parse(readFileSync(`node_modules/@paykit/${dir}/package.json`, 'utf8'));
  for (const key of Object.keys(manifest.exports)) {
    if (key === './package.json') continue;
    const specifier = key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`;
    counts[specifier] = Object.keys(await import(specifier)).length;
  }
}
console.log(JSON.stringify(counts));
