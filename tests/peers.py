"""What the endpoint tests share: async test bodies under a deadline, polling for a condition, loopback."""
import asyncio

HOST = "127.0.0.1"
HIGH_WATER = 64 * 1024  # asyncio's default write-buffer high-water mark


def run(coro, timeout: float = 30.0):
    """Run one async test body under a hard deadline."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def until(predicate, timeout: float = 10.0) -> None:
    """Wait until predicate() holds, looking every 5 ms."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.005)
