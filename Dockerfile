# Siege Hall in a container: `docker build -t siege-hall .`, then run it with a token and a
# volume for its data (see compose.yaml for the bot with PostgreSQL, README "Deployment").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY storage ./storage
COPY presentation ./presentation
COPY cogs ./cogs
COPY runtime ./runtime
COPY siegehall ./siegehall
COPY assets ./assets
COPY docs ./docs
COPY bot.py ./
RUN pip install .

# The bot runs as an unprivileged user; /data holds the SQLite file (or, with DATABASE_URL set,
# only the command-sync hash) and is the volume to back up.
RUN useradd --create-home --uid 10001 siege && mkdir /data && chown siege /data
USER siege
ENV DATABASE_PATH=/data/siege.db
VOLUME ["/data"]

# SIGTERM (docker stop) closes the bot cleanly: games are committed before every answer.
STOPSIGNAL SIGTERM
CMD ["python", "bot.py"]
