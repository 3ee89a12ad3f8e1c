# Faultline: the API and pages on the embedded SQLite database.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    FAULTLINE_DB=/data/faultline.db \
    FAULTLINE_KB=/app/kb

RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin faultline \
    && mkdir -p /data /app && chown faultline:faultline /data

WORKDIR /app
COPY pyproject.toml README.md alembic.ini constraints.txt ./
COPY app ./app
COPY migrations ./migrations
COPY kb ./kb
# constraints.txt pins every dependency to the versions the test suite passed with
RUN pip install -c constraints.txt -e . \
    && if [ -d app/i18n/locales ]; then pybabel -q compile -d app/i18n/locales; fi

USER faultline
# The knowledge base is validated and loaded at build time; a broken kb/ fails the build.
RUN faultline load --db /data/faultline.db

EXPOSE 8000
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"

CMD ["faultline", "serve", "--host", "0.0.0.0", "--port", "8000"]
