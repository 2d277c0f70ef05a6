// Auth.js (next-auth v4): email + password checked by Rein's identity service
// through the bridge server.ts installs; sessions are JWTs whose `sub` is the user id
// and whose `sv` is the user's session version at sign-in (server/identity refuses
// a session whose version is no longer the user's: disabled, password reset).
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { CLIENT_ADDRESS_HEADER, authBridge, type SignedInUser } from "@/lib/auth-bridge";

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
      if (user) {
        token.sub = user.id;
        token.sv = (user as Partial<SignedInUser>).sessionVersion ?? 0;
      }
      return token;
    },
  },
};
