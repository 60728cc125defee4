# The dashboard as a read-only public deployment: one Streamlit server per container, the bundled snapshot
# baked in, public mode on (no saving of readers' events; no error details or server paths in the browser).
# Run several replicas behind a reverse proxy with sticky sessions (README, "Running it in containers").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# Debian's chromium, for the PNG and SVG exports (kaleido drives it); fonts so chart text renders.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# The pinned runtime requirements only (the test and development tools are in requirements-dev.txt, which
# the image never installs).
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt

# The code and the committed snapshot (data/, without raw downloads: see .dockerignore), owned by root and
# read-only to the app's user; the only writable place is /state (kept empty: public mode saves nothing).
COPY . .
RUN useradd --system --uid 10001 --create-home --home-dir /home/app app \
 && mkdir -p /state && chown app /state \
 && chmod -R a-w /app
USER app

ENV DASHBOARD_PUBLIC=1 \
    DASHBOARD_EVENTS_FILE=/state/user_events.csv \
    BROWSER_PATH=/usr/bin/chromium \
    STREAMLIT_CLIENT_SHOW_ERROR_DETAILS=none \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read().strip() == b'ok' else 1)"]

# Listens on every interface inside the container (publish the port to the proxy only). Set the public host
# name at run time: -e STREAMLIT_SERVER_ALLOWED_HOSTS=dash.example.org (the bundled config allows loopback only).
CMD ["streamlit", "run", "dashboard.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", "--client.showErrorDetails=none", "--client.toolbarMode=minimal", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none", "--runner.postScriptGC=false", "--global.developmentMode=false"]
