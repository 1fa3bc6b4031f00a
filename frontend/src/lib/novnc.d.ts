// noVNC ships no types: the part of its RFB the page uses (vnclink.ts).
declare module '@novnc/novnc' {
  const RFB: import('./vnclink').RFBConstructor;
  export default RFB;
}
