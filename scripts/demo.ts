// `npm run demo`: the main job. Issue #5 brings the built-in example stack (a spam gate on the
// SpamAssassin corpus); until it lands this says so instead of pretending.
console.log('The demo loop (a real spam gate trained by the loop) arrives with issue #5.');
console.log('Meanwhile: `npm run dev-server` starts Temporal with its Web UI, and `npm test` runs the loop end to end on the fixture stack.');
