// Auth.js (next-auth v4): email + password checked by Rein's identity service
// through the bridge server.ts installs; sessions are JWTs whose `sub` is the user id.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { CLIENT_ADDRESS_HEADER, authBridge } from "@/lib/auth-bridge";

export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: 7 * 24 * 60 * 60 },
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials, req) {
        const email = credentials?.email?.trim();
        const password = credentials?.password;
        if (!email || !password) return null;
        const address = req?.headers?.[CLIENT_ADDRESS_HEADER];
        // A throttled attempt throws: Auth.js hands its message to the login page.
        return authBridge().verifyCredentials(email, password, typeof address === "string" ? address : undefined);
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
  },
};
