// Files the app hands to the browser to save, named as the server names
// them (appfile.FileName): path and reserved characters replaced.

// fileName is "<name><suffix>", or "<fallback><suffix>" when nothing of
// name is left.
export function fileName(name: string, fallback: string, suffix: string): string {
  let clean = name.trim().replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_');
  if (clean.replace(/\./g, '') === '') clean = fallback;
  return `${clean}${suffix}`;
}

// saveFile hands text to the browser as a download.
export function saveFile(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked after the click has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
