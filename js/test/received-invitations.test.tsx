// A user's received team invitations (API 2.8: GET /team-invitations?user_id=me and
// POST /team-invitations/{id}/accept) against the real local service, and the clear error a
// 2.7 service gives.
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AuthClient } from "../src/client";
import { AuthProvider, useAuth, useReceivedTeamInvitations, useTeams } from "../src/index";
import { NotInServiceVersion, VerificationCodeNotFound } from "../src/errors";
import { RECEIVED_NEED_2_8 } from "../src/teams";
import { API_VERSIONS, startLocalService, type RunningService } from "./local-service";

const PASSWORD = "correct horse battery staple";
const HANDLER = "http://localhost:3000/handler";
afterEach(cleanup);

/** The received invitations as a person sees them, with an accept button each, and the teams. */
function Invitations() {
  const received = useReceivedTeamInvitations();
  const teams = useTeams();
  const auth = useAuth();
  if (received.status === "error") return <p role="alert">{String(received.error)}</p>;
  return (
    <>
      <ul aria-label="invitations">
        {(received.status === "ready" ? received.value : []).map((invitation) => (
          <li key={invitation.id}>
            {invitation.teamDisplayName}{" "}
            <button onClick={() => void auth.teamInvitations.acceptById(invitation.id)}>Join {invitation.teamDisplayName}</button>
          </li>
        ))}
      </ul>
      <p data-testid="teams">{teams.status === "ready" ? teams.value.map((t) => t.displayName).join(",") : teams.status}</p>
    </>
  );
}

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}@example.com`;

for (const api of API_VERSIONS) {
  describe(`received team invitations on a service answering as ${api}`, () => {
    let service: RunningService;
    beforeAll(async () => {
      service = await startLocalService(api);
    }, 180_000);
    afterAll(() => service?.stop());

    const client = () =>
      new AuthClient({
        projectId: service.project.project_id,
        publishableClientKey: service.project.publishable_client_key,
        baseUrl: service.url,
        cookies: null,
      });

    /** The code of the newest e-mail of `kind` to `to` (the service writes it before answering). */
    async function codeOf(to: string, kind: string): Promise<string> {
      const answer = await fetch(`${service.url}/dev/outbox?to=${encodeURIComponent(to)}`);
      const items = ((await answer.json()) as { items: { kind: string; link: string | null }[] }).items;
      const link = items.find((item) => item.kind === kind)?.link;
      if (!link) throw new Error(`no ${kind} e-mail to ${to} in the outbox`);
      return new URL(link).searchParams.get("code")!;
    }

    async function verifiedUser(tag: string) {
      const app = client();
      const address = email(tag);
      await app.signUpWithCredential(address, PASSWORD, { verificationCallbackUrl: `${HANDLER}/email-verification` });
      await app.verifyEmail(await codeOf(address, "email_verification"));
      return { app, address };
    }

    async function teamOf(owner: AuthClient, name: string): Promise<string> {
      const answer = await fetch(`${service.url}/api/v1/teams`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-stack-project-id": service.project.project_id,
          "x-stack-access-type": "server",
          "x-stack-secret-server-key": service.project.secret_server_key,
        },
        body: JSON.stringify({ display_name: name, creator_user_id: owner.getUserState().user!.id }),
      });
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { id: string }).id;
    }

    if (api === "2.8")
      it("lists the invitations sent to the user's verified address and accepts one by id", async () => {
        const { app: owner } = await verifiedUser("owner");
        const teamId = await teamOf(owner, "Rowing club");
        const { app: guest, address } = await verifiedUser("guest");
        const { id } = await owner.teamInvitations.send({ teamId, email: address, callbackUrl: `${HANDLER}/team-invitation` });
        await owner.teamInvitations.send({ teamId, email: email("someone-else"), callbackUrl: `${HANDLER}/team-invitation` });

        const [received, ...others] = await guest.teamInvitations.listReceived();
        expect(others).toEqual([]);
        expect(received).toMatchObject({ id, teamId, teamDisplayName: "Rowing club", recipientEmail: address });
        expect(received!.expiresAt).toBeInstanceOf(Date);
        expect(await owner.teamInvitations.listReceived()).toEqual([]);

        const { app: outsider } = await verifiedUser("outsider");
        await expect(outsider.teamInvitations.acceptById(id)).rejects.toBeInstanceOf(VerificationCodeNotFound);
        await guest.teamInvitations.acceptById(id);
        expect((await guest.teams.list()).map((t) => t.id)).toEqual([teamId]);
        expect(await guest.teamInvitations.listReceived()).toEqual([]);
        expect(await client().teamInvitations.listReceived()).toEqual([]); // signed out: no call
      });

    if (api === "2.8")
      it("useReceivedTeamInvitations shows them, and accepting one reloads the list and the teams", async () => {
        const { app: owner } = await verifiedUser("owner");
        const teamId = await teamOf(owner, "Chess club");
        const { app: guest, address } = await verifiedUser("guest");
        await owner.teamInvitations.send({ teamId, email: address, callbackUrl: `${HANDLER}/team-invitation` });
        render(
          <AuthProvider projectId={service.project.project_id} baseUrl={service.url} client={guest}>
            <Invitations />
          </AuthProvider>,
        );
        const join = await screen.findByRole("button", { name: "Join Chess club" });
        await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe(""));
        await act(async () => join.click());
        await waitFor(() => expect(screen.getByTestId("teams").textContent).toBe("Chess club"));
        await waitFor(() => expect(screen.queryByRole("button", { name: "Join Chess club" })).toBeNull());
      });

    if (api === "2.7")
      it("is NotInServiceVersion, naming 2.8 and the code-based accept", async () => {
        const { app } = await verifiedUser("old");
        const listed = await app.teamInvitations.listReceived().catch((e: unknown) => e);
        expect(listed).toBeInstanceOf(NotInServiceVersion);
        expect(listed).toMatchObject({ status: 400, message: RECEIVED_NEED_2_8 });
        const accepted = await app.teamInvitations.acceptById("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
        expect(accepted).toBeInstanceOf(NotInServiceVersion);
        expect(accepted).toMatchObject({ status: 404, message: RECEIVED_NEED_2_8 });
      });
  });
}
