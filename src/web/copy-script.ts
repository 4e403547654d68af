// The one script of Folio's pages, served from /assets/copy.js (a same-origin file
// keeps the Content-Security-Policy free of inline script). A button with
// data-copy="ID" copies the text of the element with that id. Without script,
// or where the clipboard is refused, the text stays selectable by hand.
export const copyScript = `
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  const source = button && document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = source.textContent.trim();
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    if (!document.execCommand('copy')) return;
  }
  button.textContent = 'Copied';
});
for (const button of document.querySelectorAll('button[data-copy]')) button.hidden = false;
`;
