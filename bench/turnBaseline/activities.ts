/** The baseline turn's one local activity: POST the text as a `message`-shaped JSON body, read the answer. */
export function createTurnBaselineActivities() {
  return {
    async postTurn(url: string, text: string): Promise<number> {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'message', text }),
      });
      await response.text();
      return response.status;
    },
  };
}

export type TurnBaselineActivities = ReturnType<typeof createTurnBaselineActivities>;
