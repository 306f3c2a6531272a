// Express 4 installed under an alias for the contract suite; the API the harness uses is typed alike.
declare module "express4" {
  import express from "express";
  export default express;
}
