// The server's file-service program, which build.ts resolves to server/compute/files/program.ts.
declare module "rein:file-service-program" {
  export const FILE_SERVICE_PROGRAM: string;
}
