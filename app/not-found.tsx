import Link from "next/link";

export default function NotFound() {
  return (
    <div className="login-page">
      <div className="card login-card" style={{ textAlign: "center" }}>
        <h1>Page not found</h1>
        <p className="muted">There is nothing at this address.</p>
        <Link href="/runs" className="btn btn-primary">
          Go to runs
        </Link>
      </div>
    </div>
  );
}
