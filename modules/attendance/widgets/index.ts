import path from 'node:path';
import { defineWidget } from '../../widget';

/** The attendance module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const attendanceWidgets = [
  defineWidget({
    id: 'attendance-trend',
    module: 'attendance',
    title: 'Attendance trend',
    description: 'Attendance week by week as bars, with first-timers as a line.',
    tools: ['attendance_get_summary'],
    script: path.join(__dirname, 'attendance-trend.mts'),
  }),
];
